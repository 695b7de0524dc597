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
