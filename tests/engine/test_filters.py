"""Each Filter plugin's status code and reason text, through analyze()."""

from __future__ import annotations

from typing import Any

from scheduling.engine import analyze

from .builders import as_list, make_node, make_pod


def _reasons(*items: dict[str, Any], pod: dict[str, Any]) -> dict[str, list[str]]:
    result = analyze(as_list(*items), pod).to_dict()
    return {r["node"]: r["reasons"] for r in result["rejected_nodes"]}


def test_node_unschedulable_unless_tolerated() -> None:
    node = make_node("n1").unschedulable().obj()
    assert _reasons(node, pod=make_pod("p").obj()) == {"n1": ["node(s) were unschedulable"]}
    tolerant = (
        make_pod("p")
        .toleration("node.kubernetes.io/unschedulable", operator="Exists", effect="NoSchedule")
        .obj()
    )
    assert analyze(as_list(node), tolerant).outcome == "fits"


def test_taints() -> None:
    node = make_node("n1").taint("gpu", "true", "NoSchedule").obj()
    assert _reasons(node, pod=make_pod("p").obj()) == {"n1": ["node(s) had untolerated taint(s)"]}
    assert (
        analyze(as_list(node), make_pod("p").toleration("gpu", "true", "NoSchedule").obj()).outcome
        == "fits"
    )
    soft = make_node("n2").taint("gpu", "true", "PreferNoSchedule").obj()
    assert analyze(as_list(soft), make_pod("p").obj()).outcome == "fits"


def test_node_selector_and_affinity() -> None:
    a = make_node("a").zone("z1").obj()
    b = make_node("b").zone("z2").obj()
    pod = make_pod("p").node_affinity_in("topology.kubernetes.io/zone", "z2").obj()
    result = analyze(as_list(a, b), pod)
    assert result.feasible_nodes == ["b"]
    assert {r.node: r.status.reasons for r in result.rejected_nodes} == {
        "a": ["node(s) didn't match Pod's node affinity/selector"]
    }
    assert (
        analyze(
            as_list(a, b),
            make_pod("p").node_selector(**{"topology.kubernetes.io/zone": "z1"}).obj(),
        ).node
        == "a"
    )


def test_host_ports_conflict_on_same_protocol_only() -> None:
    node = make_node("n1").obj()
    user = make_pod("user").priority(0).node("n1").host_port(9100).obj()
    assert _reasons(node, user, pod=make_pod("p").host_port(9100).obj()) == {
        "n1": ["node(s) didn't have free ports for the requested pod ports"]
    }
    assert (
        analyze(as_list(node, user), make_pod("p").host_port(9100, "UDP").obj()).outcome == "fits"
    )


def test_resources_fit_reasons_in_scheduler_order_and_codes() -> None:
    node = make_node("n1").capacity(cpu="2", memory="1Gi", pods="1").obj()
    running = (
        make_pod("r").priority(0).req(cpu="1").node("n1").start_time("2025-06-02T08:00:00Z").obj()
    )
    pod = make_pod("p").priority(0).req(cpu="3", memory="512Mi").obj()
    result = analyze(as_list(node, running), pod)
    (rej,) = result.rejected_nodes
    assert rej.status.reasons == ["Too many pods", "Insufficient cpu"]
    # 3 cpu exceeds the node's 2 allocatable outright: preemption cannot help.
    assert rej.status.code.label == "UnschedulableAndUnresolvable"


def test_extended_resource_missing_on_node() -> None:
    node = make_node("n1").obj()
    assert _reasons(node, pod=make_pod("p").req(gpu="1").obj()) == {
        "n1": ["Insufficient nvidia.com/gpu"]
    }


def test_nominated_pods_of_higher_priority_take_their_room() -> None:
    node = make_node("n1").capacity(cpu="2").obj()
    nominated = make_pod("nom").priority(100).req(cpu="2").nominated("n1").obj()
    pending = make_pod("p").priority(10).req(cpu="1").obj()
    assert _reasons(node, nominated, pod=pending) == {"n1": ["Insufficient cpu"]}
    lower = make_pod("nom").priority(1).req(cpu="2").nominated("n1").obj()
    assert analyze(as_list(node, lower), pending).outcome == "fits"


def test_fit_message_histogram_sorted_as_strings() -> None:
    nodes = [make_node(f"n{i:02d}").capacity(cpu="1").obj() for i in range(10)]
    nodes.append(make_node("tainted").taint("x").obj())
    result = analyze(
        as_list(*nodes), make_pod("p").priority(0).req(cpu="2").preemption_policy("Never").obj()
    )
    assert result.message == (
        "0/11 nodes are available: 1 node(s) had untolerated taint(s), 10 Insufficient cpu. "
        "no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never."
    )


def test_scoring_prefers_least_allocated_and_reports_ties() -> None:
    busy = make_node("busy").capacity(cpu="4").obj()
    idle = make_node("idle").capacity(cpu="4").obj()
    load = (
        make_pod("load")
        .priority(0)
        .req(cpu="3")
        .node("busy")
        .start_time("2025-06-02T08:00:00Z")
        .obj()
    )
    result = analyze(as_list(busy, idle, load), make_pod("p").req(cpu="1").obj())
    assert result.node == "idle"
    tie = analyze(
        as_list(make_node("a").obj(), make_node("b").obj()), make_pod("p").req(cpu="1").obj()
    )
    assert tie.node == "a" and tie.top_scored_nodes == ["a", "b"]


def test_node_selector_requirement_parse_errors_match_no_node() -> None:
    # labels.NewRequirement refuses these; nodeaffinity then treats the term as matching
    # nothing.
    from scheduling.engine.labels import NodeSelectorTerm

    def matches(op: str, values: list[str], labels: dict[str, str]) -> bool:
        term = NodeSelectorTerm.parse(
            {"matchExpressions": [{"key": "k", "operator": op, "values": values}]}, "t"
        )
        return term.matches(labels, "n")

    assert not matches("NotIn", [], {"k": "a"})
    assert not matches("In", [], {"k": "a"})
    assert not matches("Exists", ["a"], {"k": "a"})
    assert not matches("DoesNotExist", ["a"], {})
    assert not matches("Gt", ["1", "2"], {"k": "5"})
    assert not matches("Gt", ["x"], {"k": "5"})
    # strconv.ParseInt: no underscores or spaces, a sign is fine.
    assert not matches("Gt", ["1"], {"k": "1_0"})
    assert not matches("Lt", ["10"], {"k": " 5"})
    assert matches("Gt", ["-1"], {"k": "+5"})
    assert matches("Lt", ["10"], {"k": "5"})


def test_nominations_of_pods_of_other_schedulers_are_ignored() -> None:
    from scheduling.engine import load_cluster

    mine = make_pod("mine").nominated("n1").obj()
    other = make_pod("other").nominated("n1").obj()
    other["spec"]["schedulerName"] = "other-scheduler"
    cluster = load_cluster(as_list(make_node("n1").obj(), mine, other))
    assert [p.name for p in cluster.nominated["n1"]] == ["mine"]


class _Narrow:
    """A PreFilter plugin that keeps only the given nodes."""

    keep: set[str] = set()

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def pre_filter(self, state: Any, pod: Any, nodes: Any) -> Any:
        from scheduling.engine.framework import SUCCESS, PreFilterResult

        return PreFilterResult(set(self.keep)), SUCCESS


class _NarrowA(_Narrow):
    name = "A"
    keep = {"n1"}


class _NarrowB(_Narrow):
    name = "B"
    keep = {"n2"}


class _NarrowNone(_Narrow):
    name = "C"
    keep = set()


class _Rejects:
    name = "R"

    def __init__(self, handle: Any) -> None:
        pass

    def pre_filter(self, state: Any, pod: Any, nodes: Any) -> Any:
        from scheduling.engine.framework import Code, Status

        return None, Status(Code.UNSCHEDULABLE, "rejected")


class _Records:
    name = "W"

    def __init__(self, handle: Any) -> None:
        pass

    def pre_filter(self, state: Any, pod: Any, nodes: Any) -> Any:
        from scheduling.engine.framework import SUCCESS

        state.write("ran", True)
        return None, SUCCESS


def _run_pre_filter(*plugins: Any) -> Any:
    from scheduling.engine import load_cluster
    from scheduling.engine.config import EngineConfig
    from scheduling.engine.framework import CycleState, Handle
    from scheduling.engine.objects import Pod
    from scheduling.engine.runtime import Framework

    cluster = load_cluster(as_list(make_node("n1").obj(), make_node("n2").obj()))
    fw = Framework(Handle(cluster, EngineConfig()), [(p.name, p) for p in plugins])
    state = CycleState()
    _, status, _ = fw.run_pre_filter(state, Pod.from_dict(make_pod("p").obj()), cluster.node_infos)
    return status, state


def test_pre_filter_results_that_leave_no_node() -> None:
    # RunPreFilterPlugins: "plugin X" for one plugin, "plugin(s) [X Y] simultaneously" else.
    status, _ = _run_pre_filter(_NarrowA, _NarrowB)
    assert status.code.label == "UnschedulableAndUnresolvable"
    assert status.reasons == ["node(s) didn't satisfy plugin(s) [A B] simultaneously"]
    status, _ = _run_pre_filter(_NarrowNone)
    assert status.reasons == ["node(s) didn't satisfy plugin C"]


def test_pre_filter_unschedulable_lets_the_other_plugins_run() -> None:
    # An Unschedulable PreFilter status is kept while the remaining plugins still run
    # (kubernetes#119770); it is what RunPreFilterPlugins returns in the end.
    status, state = _run_pre_filter(_Rejects, _Records)
    assert (status.code.label, status.plugin, status.reasons) == (
        "Unschedulable",
        "R",
        ["rejected"],
    )
    assert state.get("ran") is True


def test_nominated_node_outside_the_pre_filter_result_keeps_its_filter_status() -> None:
    # findNodesThatFitPod evaluates the nominated node before narrowing the nodes to the
    # PreFilter result, recording its failure; only the other left-out nodes get the
    # absent-node status.
    pod = make_pod("p").req(cpu="2").nominated("n2").obj()
    pod["spec"]["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}
                ]
            }
        }
    }
    nodes = [make_node(n).capacity(cpu="1").obj() for n in ("n1", "n2", "n3")]
    result = analyze(as_list(*nodes), pod).to_dict()
    reasons = {r["node"]: r["reasons"] for r in result["rejected_nodes"]}
    assert reasons == {
        "n1": ["Insufficient cpu"],
        "n2": ["node(s) didn't match Pod's node affinity/selector"],
        "n3": ["node(s) didn't satisfy plugin(s) [NodeAffinity]"],
    }
    assert result["message"].startswith(
        "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node"
        " affinity/selector, 1 node(s) didn't satisfy plugin(s) [NodeAffinity]."
    )
