"""PodTopologySpread: PreFilter/Filter, AddPod/RemovePod, critical paths and scoring.

Cases follow pkg/scheduler/framework/plugins/podtopologyspread/{filtering,scoring}_test.go;
expected values are worked out by hand from the skew and score formulas.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from scheduling.engine import load_cluster
from scheduling.engine.cluster import Cluster
from scheduling.engine.framework import Code, CycleState, NodeScore
from scheduling.engine.plugins.podtopologyspread import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH as SKEW,
)
from scheduling.engine.plugins.podtopologyspread import (
    ERR_REASON_NODE_LABEL_NOT_MATCH as MISSING,
)
from scheduling.engine.plugins.podtopologyspread import CriticalPaths, PodTopologySpread
from tests.engine import plugin_harness as harness
from tests.engine.builders import as_list, make_node, make_pod

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
OK = harness.OK
UAU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
UNS = Code.UNSCHEDULABLE


def constraint(
    key: str = ZONE,
    max_skew: int = 1,
    when: str = "DoNotSchedule",
    selector: Any = "default",
    **extra: Any,
) -> dict[str, Any]:
    c: dict[str, Any] = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when}
    c["labelSelector"] = {"matchLabels": {"app": "web"}} if selector == "default" else selector
    c.update(extra)
    return c


def spread_pod(
    *constraints: dict[str, Any], namespace: str = "default", **labels: str
) -> dict[str, Any]:
    pod = make_pod("p", namespace).labels(**(labels or {"app": "web"})).obj()
    pod["spec"]["topologySpreadConstraints"] = list(constraints)
    return pod


def web(name: str, node: str, namespace: str = "default", **labels: str) -> dict[str, Any]:
    return make_pod(name, namespace).labels(**(labels or {"app": "web"})).node(node).obj()


def with_spec(pod: dict[str, Any], **spec: Any) -> dict[str, Any]:
    pod["spec"].update(spec)
    return pod


IN_ZONES_A_B = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["a", "b"]}]}
            ]
        }
    }
}


def nodes_ab() -> list[dict[str, Any]]:
    """zone a: a1, a2; zone b: b1, b2."""
    return [make_node(n).zone(n[0]).obj() for n in ("a1", "a2", "b1", "b2")]


def setup(
    objects: list[dict[str, Any]], pod: dict[str, Any]
) -> tuple[Cluster, PodTopologySpread, Any]:
    cluster, pl, pending = harness.setup(PodTopologySpread, objects, pod)
    return cluster, pl, pending


def filter_all(objects: list[dict[str, Any]], pod: dict[str, Any]) -> dict[str, Any]:
    return harness.filter_all(PodTopologySpread, objects, pod)


ALL_OK = {"a1": OK, "a2": OK, "b1": OK, "b2": OK}
A_FAILS = {"a1": (UNS, SKEW), "a2": (UNS, SKEW), "b1": OK, "b2": OK}

FILTER_CASES: list[tuple[str, list[dict[str, Any]], dict[str, Any], dict[str, Any]]] = [
    ("no constraints: skip", nodes_ab(), make_pod("p").obj(), {"skip": True}),
    (
        "only ScheduleAnyway constraints: skip",
        nodes_ab(),
        spread_pod(constraint(when="ScheduleAnyway")),
        {"skip": True},
    ),
    ("no existing pods: 0 + 1 - 0 <= 1 everywhere", nodes_ab(), spread_pod(constraint()), ALL_OK),
    (
        # zone a: 2, zone b: 1 -> a: 2 + 1 - 1 = 2 > 1; b: 1 + 1 - 1 = 1
        "zone skew rejects the fuller zone",
        [*nodes_ab(), web("w1", "a1"), web("w2", "a2"), web("w3", "b1")],
        spread_pod(constraint()),
        A_FAILS,
    ),
    (
        "maxSkew 2 tolerates it",
        [*nodes_ab(), web("w1", "a1"), web("w2", "a2"), web("w3", "b1")],
        spread_pod(constraint(max_skew=2)),
        ALL_OK,
    ),
    (
        "a pod that does not match its own selector adds no self-match",
        [*nodes_ab(), web("w1", "a1"), web("w2", "a2"), web("w3", "b1")],
        spread_pod(constraint(), app="other"),
        ALL_OK,
    ),
    (
        "pods of another namespace do not count",
        [*nodes_ab(), web("w1", "a1", "other"), web("w2", "a2", "other")],
        spread_pod(constraint()),
        ALL_OK,
    ),
    (
        "terminating pods do not count",
        [
            *nodes_ab(),
            make_pod("w1").labels(app="web").node("a1").terminating().obj(),
            make_pod("w2").labels(app="web").node("a2").terminating().obj(),
        ],
        spread_pod(constraint()),
        ALL_OK,
    ),
    (
        "an empty selector counts nothing",
        [*nodes_ab(), web("w1", "a1"), web("w2", "a2")],
        spread_pod(constraint(selector={})),
        ALL_OK,
    ),
    (
        "a node without the topology key: UnschedulableAndUnresolvable, and its pods don't count",
        [*nodes_ab(), make_node("x").obj(), web("w1", "x"), web("w2", "x")],
        spread_pod(constraint()),
        {**ALL_OK, "x": (UAU, MISSING)},
    ),
    (
        # hostname: a1 has 1, the others 0 -> a1: 1 + 1 - 0 = 2 > 1
        "hostname spreading",
        [*nodes_ab(), web("w1", "a1")],
        spread_pod(constraint(HOST)),
        {"a1": (UNS, SKEW), "a2": OK, "b1": OK, "b2": OK},
    ),
    (
        # zone a: 1, zone b: 1; only 2 domains < minDomains 3 -> minimum 0: 1 + 1 - 0 = 2 > 1
        "minDomains above the number of domains makes the global minimum 0",
        [*nodes_ab(), web("w1", "a1"), web("w2", "b1")],
        spread_pod(constraint(minDomains=3)),
        {"a1": (UNS, SKEW), "a2": (UNS, SKEW), "b1": (UNS, SKEW), "b2": (UNS, SKEW)},
    ),
    (
        "minDomains met: the real minimum",
        [*nodes_ab(), web("w1", "a1"), web("w2", "b1")],
        spread_pod(constraint(minDomains=2)),
        ALL_OK,
    ),
    (
        # nodeSelector keeps zone c (empty) out of the domains under Honor: min is 1 (zone b)
        "nodeAffinityPolicy Honor (default) ignores domains the pod can't land in",
        [
            *nodes_ab(),
            make_node("c1").zone("c").obj(),
            web("w1", "a1"),
            web("w2", "a2"),
            web("w3", "b1"),
        ],
        with_spec(spread_pod(constraint()), affinity=IN_ZONES_A_B),
        A_FAILS | {"c1": OK},
    ),
    (
        "nodeAffinityPolicy Ignore counts the empty zone: minimum 0",
        [
            *nodes_ab(),
            make_node("c1").zone("c").label("pool", "x").obj(),
            web("w1", "a1"),
            web("w3", "b1"),
        ],
        # the pod may only go to c1 (pool=x), yet zones a and b still count
        with_spec(spread_pod(constraint(nodeAffinityPolicy="Ignore")), nodeSelector={"pool": "x"}),
        {"a1": (UNS, SKEW), "a2": (UNS, SKEW), "b1": (UNS, SKEW), "b2": (UNS, SKEW), "c1": OK},
    ),
    (
        # zone c's only node is tainted: Ignore (default) still counts it -> minimum 0
        "nodeTaintsPolicy Ignore counts a tainted domain",
        [
            *nodes_ab(),
            make_node("c1").zone("c").taint("dedicated", "x").obj(),
            web("w1", "a1"),
            web("w3", "b1"),
        ],
        spread_pod(constraint()),
        {"a1": (UNS, SKEW), "a2": (UNS, SKEW), "b1": (UNS, SKEW), "b2": (UNS, SKEW), "c1": OK},
    ),
    (
        "nodeTaintsPolicy Honor leaves the untolerated tainted domain out",
        [
            *nodes_ab(),
            make_node("c1").zone("c").taint("dedicated", "x").obj(),
            web("w1", "a1"),
            web("w3", "b1"),
        ],
        spread_pod(constraint(nodeTaintsPolicy="Honor")),
        {"a1": OK, "a2": OK, "b1": OK, "b2": OK, "c1": OK},
    ),
    (
        # only pods with the pod's pod-template-hash count: zone a has 2 of them, b 0
        "matchLabelKeys narrows the selector to the pod's own revision",
        [
            *nodes_ab(),
            web("w1", "a1", app="web", **{"pod-template-hash": "v2"}),
            web("w2", "a2", app="web", **{"pod-template-hash": "v2"}),
            web("w3", "b1", app="web", **{"pod-template-hash": "v1"}),
            web("w4", "b2", app="web", **{"pod-template-hash": "v1"}),
        ],
        spread_pod(
            constraint(matchLabelKeys=["pod-template-hash"]),
            app="web",
            **{"pod-template-hash": "v2"},
        ),
        A_FAILS,
    ),
    (
        # zone: a 1, b 1 -> fine; hostname: a1 has 1 -> a1 fails the second constraint
        "two constraints: every one must hold",
        [*nodes_ab(), web("w1", "a1"), web("w2", "b1")],
        spread_pod(constraint(), constraint(HOST)),
        {"a1": (UNS, SKEW), "a2": OK, "b1": (UNS, SKEW), "b2": OK},
    ),
]


@pytest.mark.parametrize(
    ("objects", "pod", "want"), [c[1:] for c in FILTER_CASES], ids=[c[0] for c in FILTER_CASES]
)
def test_filter(objects: list[dict[str, Any]], pod: dict[str, Any], want: dict[str, Any]) -> None:
    assert filter_all(objects, pod) == want


# Critical paths and AddPod/RemovePod ---------------------------------------------------


def test_critical_paths_keep_the_two_smallest() -> None:
    p = CriticalPaths()
    for value, num in [("a", 3), ("b", 1), ("c", 2), ("d", 5)]:
        p.update(value, num)
    assert (p.value0, p.num0, p.value1, p.num1) == ("b", 1, "c", 2)
    p.update("b", 4)  # b rises above c: swapped
    assert (p.value0, p.num0, p.value1, p.num1) == ("c", 2, "b", 4)
    p.update("d", 0)  # a new minimum pushes the old one to path 1
    assert (p.value0, p.num0, p.value1, p.num1) == ("d", 0, "c", 2)


def test_critical_paths_are_not_a_full_minimum() -> None:
    """The real structure loses track of a third domain: with a=b=c=1 and paths [a, b],
    raising a and then b leaves c out, so the recorded minimum becomes 2."""
    p = CriticalPaths()
    for value in ("a", "b", "c"):
        p.update(value, 1)
    assert (p.value0, p.value1) == ("a", "b")
    p.update("a", 2)
    p.update("b", 2)
    assert p.num0 == 2


def test_remove_and_add_pod_on_cloned_state() -> None:
    objects = [*nodes_ab(), web("w1", "a1"), web("w2", "a2"), web("w3", "b1")]
    cluster, pl, pending = setup(objects, spread_pod(constraint()))
    state = CycleState()
    pl.pre_filter(state, pending, cluster.node_infos)
    a1 = cluster.node_info_by_name["a1"]
    assert pl.filter(state, pending, a1).code == UNS

    dry = state.clone()
    ni = a1.clone()
    victim = ni.pods[0]
    ni.remove_pod(victim)
    assert pl.remove_pod(dry, pending, victim, ni).is_success()
    # zone a now 1, zone b 1: 1 + 1 - 1 = 1
    assert pl.filter(dry, pending, ni).is_success()
    assert pl.filter(state, pending, a1).code == UNS  # the original is untouched
    ni.add_pod(victim)
    pl.add_pod(dry, pending, victim, ni)
    assert pl.filter(dry, pending, ni).code == UNS


def test_add_pod_ignores_other_namespaces_and_non_matching_pods() -> None:
    cluster, pl, pending = setup([*nodes_ab(), web("w1", "a1")], spread_pod(constraint()))
    state = CycleState()
    pl.pre_filter(state, pending, cluster.node_infos)
    b1 = cluster.node_info_by_name["b1"]
    assert pl.filter(state, pending, b1).is_success()
    other_ns = load_cluster(as_list(web("x", "b1", "other"))).pods[0]
    other_app = load_cluster(as_list(web("y", "b1", app="db"))).pods[0]
    for p in (other_ns, other_app):
        pl.add_pod(state, pending, p, b1)
    assert pl.filter(state, pending, b1).is_success()
    same = load_cluster(as_list(web("z", "b1"))).pods[0]
    pl.add_pod(state, pending, same, b1)
    pl.add_pod(state, pending, same, b1)
    # zone b: 2, zone a: 1 -> b: 2 + 1 - 1 = 2 > 1
    assert pl.filter(state, pending, b1).code == UNS


# Scoring ----------------------------------------------------------------------------


def scores(
    objects: list[dict[str, Any]], pod: dict[str, Any], feasible: list[str] | None = None
) -> dict[str, int] | None:
    cluster, pl, pending = setup(objects, pod)
    nodes = [ni for ni in cluster.node_infos if feasible is None or ni.name in feasible]
    state = CycleState()
    if pl.pre_score(state, pending, nodes).code == Code.SKIP:
        return None
    out = [NodeScore(ni.name, pl.score(state, pending, ni)) for ni in nodes]
    pl.normalize_score(state, pending, out)
    return {s.name: s.score for s in out}


def anyway(key: str = ZONE, max_skew: int = 1) -> dict[str, Any]:
    return constraint(key, max_skew, when="ScheduleAnyway")


def hosts(*names: str) -> list[dict[str, Any]]:
    return [make_node(n).obj() for n in names]


NO_HOSTNAME = make_node("x").obj()
NO_HOSTNAME["metadata"]["labels"] = {}


def _w(size: int) -> float:
    return math.log(size + 2)


SCORE_CASES: list[
    tuple[str, list[dict[str, Any]], dict[str, Any], list[str] | None, dict[str, int] | None]
] = [
    (
        "no constraints: skip (no default constraints without Services)",
        nodes_ab(),
        make_pod("p").obj(),
        None,
        None,
    ),
    ("only DoNotSchedule constraints: skip", nodes_ab(), spread_pod(constraint()), None, None),
    (
        "no matching pods: every node 100",
        hosts("n1", "n2"),
        spread_pod(anyway(HOST)),
        None,
        {"n1": 100, "n2": 100},
    ),
    (
        # weight log(3 + 2); raw n1 0, n2 round(1.61) = 2, n3 round(3.22) = 3;
        # normalized 100 * (max + min - s) / max with max 3, min 0
        "hostname: fewer matching pods, higher score",
        [*hosts("n1", "n2", "n3"), web("w1", "n2"), web("w2", "n3"), web("w3", "n3")],
        spread_pod(anyway(HOST)),
        None,
        {"n1": 100, "n2": 33, "n3": 0},
    ),
    (
        # zone a 2, zone b 1; weight log(2 + 2) = 1.386: a round(2.77) = 3, b round(1.39) = 1;
        # a: 100 * (3 + 1 - 3) // 3 = 33, b: 100 * (3 + 1 - 1) // 3 = 100
        "zone counts use every node of the zone",
        [*nodes_ab(), web("w1", "a1"), web("w2", "a2"), web("w3", "b1")],
        spread_pod(anyway()),
        None,
        {"a1": 33, "a2": 33, "b1": 100, "b2": 100},
    ),
    (
        # maxSkew 3 adds 2 to every raw score: a 5, b 3 -> a 100 * (5 + 3 - 5) // 5 = 60
        "maxSkew softens the differences",
        [*nodes_ab(), web("w1", "a1"), web("w2", "a2"), web("w3", "b1")],
        spread_pod(anyway(max_skew=3)),
        None,
        {"a1": 60, "a2": 60, "b1": 100, "b2": 100},
    ),
    (
        "a node without the key is ignored and scores 0",
        [*nodes_ab(), make_node("x").obj(), web("w1", "a1")],
        spread_pod(anyway()),
        None,
        {"a1": 0, "a2": 0, "b1": 100, "b2": 100, "x": 0},
    ),
    (
        # hostname weight counts scored nodes only: log(3 + 2), not log(4 + 2);
        # raw n1 0, n3 round(1.61) = 2, n2 round(3.22) = 3 -> 100, 33, 0
        "hostname weight leaves out the ignored node",
        [*hosts("n1", "n2", "n3"), NO_HOSTNAME, web("w1", "n2"), web("w2", "n2"), web("w3", "n3")],
        spread_pod(anyway(HOST)),
        None,
        {"n1": 100, "n2": 0, "n3": 33, "x": 0},
    ),
    (
        # only b1, b2 feasible: zone a is not a scored domain; b has 1 pod -> all equal
        "domains without feasible nodes are not counted",
        [*nodes_ab(), web("w1", "a1"), web("w2", "a2"), web("w3", "b1")],
        spread_pod(anyway()),
        ["b1", "b2"],
        {"b1": 100, "b2": 100},
    ),
]


@pytest.mark.parametrize(
    ("objects", "pod", "feasible", "want"),
    [c[1:] for c in SCORE_CASES],
    ids=[c[0] for c in SCORE_CASES],
)
def test_score(
    objects: list[dict[str, Any]],
    pod: dict[str, Any],
    feasible: list[str] | None,
    want: dict[str, int] | None,
) -> None:
    assert scores(objects, pod, feasible) == want


def test_score_rounds_to_nearest() -> None:
    """Two zones, 2 matching pods in one: raw 2 * log(4) = 2.77 -> 3, not truncated to 2."""
    cluster, pl, pending = setup(
        [*nodes_ab(), web("w1", "a1"), web("w2", "a2")], spread_pod(anyway())
    )
    state = CycleState()
    pl.pre_score(state, pending, cluster.node_infos)
    assert pl.score(state, pending, cluster.node_info_by_name["a1"]) == round(2 * _w(2)) == 3
    assert pl.score(state, pending, cluster.node_info_by_name["b1"]) == 0


def test_removing_a_terminating_pod_goes_below_the_prefilter_count() -> None:
    # common.go countPodsMatchSelector skips terminating pods, but filtering.go updateWithPod
    # does not look at deletionTimestamp: a terminating victim removed in the dry run takes
    # its zone from 0 to -1, and the global minimum with it.
    dying = make_pod("dying").labels(app="web").node("a1").terminating().obj()
    objects = [*nodes_ab(), dying, web("w1", "b1")]
    cluster, pl, pending = setup(objects, spread_pod(constraint(max_skew=2)))
    state = CycleState()
    pl.pre_filter(state, pending, cluster.node_infos)
    a1 = cluster.node_info_by_name["a1"]
    b1 = cluster.node_info_by_name["b1"]
    # zone a 0, zone b 1: b1 = 1 + 1 - 0 = 2 <= 2
    assert pl.filter(state, pending, b1).is_success()

    dry = state.clone()
    ni = a1.clone()
    victim = ni.pods[0]
    ni.remove_pod(victim)
    pl.remove_pod(dry, pending, victim, ni)
    # zone a -1: b1 = 1 + 1 + 1 = 3 > 2; a1 = -1 + 1 + 1 = 1
    assert pl.filter(dry, pending, b1).code == UNS
    assert pl.filter(dry, pending, ni).is_success()


def test_empty_selector_counts_nothing_but_matches_added_pods() -> None:
    # countPodsMatchSelector returns 0 for an Empty() selector, while labels.Everything()
    # matches every pod in Filter's self-match and in updateWithPod.
    objects = [*nodes_ab(), web("w1", "a1"), web("w2", "a1", app="db")]
    cluster, pl, pending = setup(objects, spread_pod(constraint(selector={})))
    state = CycleState()
    pl.pre_filter(state, pending, cluster.node_infos)
    a1 = cluster.node_info_by_name["a1"]
    # both zones 0: 0 + 1 - 0 = 1 everywhere
    assert pl.filter(state, pending, a1).is_success()
    other = load_cluster(as_list(web("x", "a2", app="cache"))).pods[0]
    pl.add_pod(state, pending, other, cluster.node_info_by_name["a2"])
    pl.add_pod(state, pending, other, cluster.node_info_by_name["a2"])
    # zone a 2, zone b 0: a1 = 2 + 1 - 0 = 3 > 1
    assert pl.filter(state, pending, a1).code == UNS
    assert pl.filter(state, pending, cluster.node_info_by_name["b1"]).is_success()
