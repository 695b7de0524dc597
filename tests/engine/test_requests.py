"""Pod requests as resourcehelper.PodRequests computes them."""

from scheduling.engine.objects import Pod

from .builders import make_pod


def _pod(builder) -> Pod:  # type: ignore[no-untyped-def]
    return Pod.from_dict(builder.obj())


def test_containers_add_up() -> None:
    p = _pod(make_pod("p").req(cpu="500m", memory="1Gi").container(cpu="250m"))
    assert p.requests == {"cpu": 750, "memory": 2**30}


def test_init_container_peak_wins_when_larger() -> None:
    p = _pod(make_pod("p").req(cpu="1").init_container(cpu="2"))
    assert p.requests["cpu"] == 2000


def test_sidecars_add_to_the_total_and_to_later_init_peaks() -> None:
    p = _pod(
        make_pod("p").req(cpu="1").init_container(sidecar=True, cpu="500m").init_container(cpu="1")
    )
    # regular 1 + sidecar 0.5 = 1.5; the later init runs beside the sidecar: 1 + 0.5 = 1.5
    assert p.requests["cpu"] == 1500


def test_overhead_and_pod_level_resources() -> None:
    p = _pod(make_pod("p").req(cpu="1", memory="1Gi").pod_level(cpu="3").overhead(cpu="100m"))
    assert p.requests["cpu"] == 3100
    assert p.requests["memory"] == 2**30


def test_best_effort_has_no_requests_but_non_zero_defaults() -> None:
    p = _pod(make_pod("p").best_effort())
    assert p.requests == {}
    assert p.qos_class == "BestEffort"
    assert (p.non_zero_cpu, p.non_zero_memory) == (100, 200 * 1024 * 1024)


MI = 1024 * 1024


def test_score_request_ignores_pod_level_and_fills_defaults_per_container() -> None:
    # PodInfo.CalculateResource (NonZeroRequested) takes the pod-level cpu and adds no
    # memory default since the pod requests memory somewhere (getNonMissingContainerRequests).
    # LeastAllocated's request for the incoming pod (calculatePodResourceRequest) comes
    # from a scorer NewFit builds without the PodLevelResources gate: containers only,
    # each without a request counting the defaults: cpu 100m + 100m, memory 100Mi + 200Mi.
    p = _pod(make_pod("p").req(memory="100Mi").container().pod_level(cpu="1"))
    assert (p.non_zero_cpu, p.non_zero_memory) == (1000, 100 * MI)
    assert (p.score_cpu, p.score_memory) == (200, 300 * MI)


def test_score_request_equals_non_zero_without_pod_level() -> None:
    p = _pod(make_pod("p").req(memory="100Mi").container(cpu="200m"))
    assert (p.non_zero_cpu, p.non_zero_memory) == (300, 300 * MI)
    assert (p.score_cpu, p.score_memory) == (p.non_zero_cpu, p.non_zero_memory)


def test_least_allocated_uses_the_score_request() -> None:
    from scheduling.engine import load_cluster
    from scheduling.engine.config import EngineConfig
    from scheduling.engine.framework import CycleState, Handle
    from scheduling.engine.plugins.noderesources import Fit

    from .builders import as_list, make_node

    cluster = load_cluster(as_list(make_node("n").capacity(cpu="4", memory="1Gi").obj()))
    fit = Fit(Handle(cluster, EngineConfig()))
    p = _pod(make_pod("p").req(memory="100Mi").container().pod_level(cpu="1"))
    # cpu (4000-200)*100/4000 = 95; memory (1024Mi-300Mi)*100/1024Mi = 70; (95+70)/2
    assert fit.score(CycleState(), p, cluster.node_infos[0]) == 82


def test_pod_level_hugepages_replace_the_containers_sum() -> None:
    # IsSupportedPodLevelResource: cpu, memory and hugepages-*.
    p = _pod(make_pod("p").req(**{"hugepages-2Mi": "2Mi"}).pod_level(**{"hugepages-2Mi": "8Mi"}))
    assert p.requests["hugepages-2Mi"] == 8 * MI


def test_pod_level_requests_of_unsupported_resources_do_not_count_as_set() -> None:
    # IsPodLevelRequestsSet is false with only ephemeral-storage at pod level, so every
    # container without a cpu request counts the 100m default (500m + 100m).
    p = _pod(make_pod("p").req(cpu="500m").container().pod_level(**{"ephemeral-storage": "1Gi"}))
    assert p.requests == {"cpu": 500}
    assert p.non_zero_cpu == 600


def test_host_ports_of_regular_containers_and_sidecars_only() -> None:
    # schedutil.GetHostPorts: init containers hold their ports only with restartPolicy
    # Always, and only hostPort > 0 counts.
    obj = make_pod("p").host_port(80).init_container().init_container(sidecar=True).obj()
    inits = obj["spec"]["initContainers"]
    inits[0]["ports"] = [{"containerPort": 81, "hostPort": 81}]
    inits[1]["ports"] = [{"containerPort": 82, "hostPort": 82}]
    obj["spec"]["containers"][0]["ports"].append({"containerPort": 83, "hostPort": -1})
    p = Pod.from_dict(obj)
    assert sorted(port for _, _, port in p.host_ports) == [80, 82]


def test_image_locality_counts_every_container() -> None:
    from scheduling.engine import load_cluster
    from scheduling.engine.config import EngineConfig
    from scheduling.engine.framework import CycleState, Handle
    from scheduling.engine.plugins.imagelocality import ImageLocality

    from .builders import as_list, make_node

    cluster = load_cluster(as_list(make_node("n").image(500 * MI, "app:1").obj()))
    plugin = ImageLocality(Handle(cluster, EngineConfig()))
    p = _pod(make_pod("p").image("app:1").container(image=""))
    assert p.num_containers == 2
    # calculatePriority(500Mi, 2): 100 * (500Mi - 23Mi) / (2000Mi - 23Mi) = 24
    assert plugin.score(CycleState(), p, cluster.node_infos[0]) == 24
