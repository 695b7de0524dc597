"""InterPodAffinity: PreFilter/Filter, AddPod/RemovePod and scoring, as tables.

Cases follow pkg/scheduler/framework/plugins/interpodaffinity/{filtering,scoring}_test.go;
each expected value is worked out from the rules, not read back from the engine.
"""

from __future__ import annotations

from typing import Any

import pytest

from scheduling.engine import EngineConfig, load_cluster
from scheduling.engine.analysis import parse_pending_pod
from scheduling.engine.cluster import Cluster
from scheduling.engine.framework import Code, CycleState, Handle, NodeScore
from scheduling.engine.plugins.interpodaffinity import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH as AFF,
)
from scheduling.engine.plugins.interpodaffinity import (
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH as ANTI,
)
from scheduling.engine.plugins.interpodaffinity import (
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH as EXISTING,
)
from scheduling.engine.plugins.interpodaffinity import InterPodAffinity
from tests.engine import plugin_harness as harness
from tests.engine.builders import as_list, make_node, make_pod

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
OK = harness.OK
UAU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
UNS = Code.UNSCHEDULABLE


def term(
    key: str = HOST, namespaces: list[str] | None = None, ns_selector: Any = None, **labels: str
) -> dict[str, Any]:
    t: dict[str, Any] = {"labelSelector": {"matchLabels": dict(labels)}, "topologyKey": key}
    if namespaces is not None:
        t["namespaces"] = namespaces
    if ns_selector is not None:
        t["namespaceSelector"] = ns_selector
    return t


def nodes_2x2() -> list[dict[str, Any]]:
    """n1, n2 in zone a; n3, n4 in zone b."""
    return [
        make_node("n1").zone("a").obj(),
        make_node("n2").zone("a").obj(),
        make_node("n3").zone("b").obj(),
        make_node("n4").zone("b").obj(),
    ]


def setup(
    objects: list[dict[str, Any]], pod: dict[str, Any]
) -> tuple[Cluster, InterPodAffinity, Any]:
    cluster, pl, pending = harness.setup(InterPodAffinity, objects, pod)
    return cluster, pl, pending


def filter_all(objects: list[dict[str, Any]], pod: dict[str, Any]) -> dict[str, Any]:
    return harness.filter_all(InterPodAffinity, objects, pod)


FILTER_CASES: list[tuple[str, list[dict[str, Any]], dict[str, Any], dict[str, Any]]] = [
    (
        "no terms and no existing anti-affinity: PreFilter skips",
        [*nodes_2x2(), make_pod("db").labels(app="db").node("n1").obj()],
        make_pod("p").obj(),
        {"skip": True},
    ),
    (
        "required affinity on hostname: only the node with the matching pod",
        [*nodes_2x2(), make_pod("db").labels(app="db").node("n1").obj()],
        make_pod("p").pod_affinity("podAffinity", term(HOST, app="db")).obj(),
        {"n1": OK, "n2": (UAU, AFF), "n3": (UAU, AFF), "n4": (UAU, AFF)},
    ),
    (
        "required affinity on zone: every node of the matching pod's zone",
        [*nodes_2x2(), make_pod("db").labels(app="db").node("n1").obj()],
        make_pod("p").pod_affinity("podAffinity", term(ZONE, app="db")).obj(),
        {"n1": OK, "n2": OK, "n3": (UAU, AFF), "n4": (UAU, AFF)},
    ),
    (
        "no pod matches anywhere but the pod matches its own term: allowed where the key exists",
        [*nodes_2x2(), make_node("nokey").obj()],
        make_pod("p").labels(app="db").pod_affinity("podAffinity", term(ZONE, app="db")).obj(),
        {"n1": OK, "n2": OK, "n3": OK, "n4": OK, "nokey": (UAU, AFF)},
    ),
    (
        "no pod matches anywhere and the pod does not match its own term: nowhere",
        nodes_2x2(),
        make_pod("p").labels(app="web").pod_affinity("podAffinity", term(ZONE, app="db")).obj(),
        {"n1": (UAU, AFF), "n2": (UAU, AFF), "n3": (UAU, AFF), "n4": (UAU, AFF)},
    ),
    (
        "self-match exception does not apply once some pod matches elsewhere",
        [*nodes_2x2(), make_pod("db").labels(app="db").node("n3").obj()],
        make_pod("p").labels(app="db").pod_affinity("podAffinity", term(HOST, app="db")).obj(),
        {"n1": (UAU, AFF), "n2": (UAU, AFF), "n3": OK, "n4": (UAU, AFF)},
    ),
    (
        "all affinity terms must match the same pod",
        [
            *nodes_2x2(),
            make_pod("db1").labels(app="db").node("n1").obj(),
            make_pod("db2").labels(app="db", tier="backend").node("n2").obj(),
        ],
        make_pod("p")
        .pod_affinity("podAffinity", term(HOST, app="db"))
        .pod_affinity("podAffinity", term(HOST, tier="backend"))
        .obj(),
        {"n1": (UAU, AFF), "n2": OK, "n3": (UAU, AFF), "n4": (UAU, AFF)},
    ),
    (
        "affinity matches pods of the pod's own namespace only by default",
        [*nodes_2x2(), make_pod("db", "other").labels(app="db").node("n1").obj()],
        make_pod("p").pod_affinity("podAffinity", term(HOST, app="db")).obj(),
        {"n1": (UAU, AFF), "n2": (UAU, AFF), "n3": (UAU, AFF), "n4": (UAU, AFF)},
    ),
    (
        "namespaces list names the other namespace",
        [*nodes_2x2(), make_pod("db", "other").labels(app="db").node("n1").obj()],
        make_pod("p").pod_affinity("podAffinity", term(HOST, namespaces=["other"], app="db")).obj(),
        {"n1": OK, "n2": (UAU, AFF), "n3": (UAU, AFF), "n4": (UAU, AFF)},
    ),
    (
        "required anti-affinity on hostname: Unschedulable on the node with the pod",
        [*nodes_2x2(), make_pod("web").labels(app="web").node("n1").obj()],
        make_pod("p").pod_affinity("podAntiAffinity", term(HOST, app="web")).obj(),
        {"n1": (UNS, ANTI), "n2": OK, "n3": OK, "n4": OK},
    ),
    (
        "required anti-affinity on zone: the whole zone",
        [*nodes_2x2(), make_pod("web").labels(app="web").node("n4").obj()],
        make_pod("p").pod_affinity("podAntiAffinity", term(ZONE, app="web")).obj(),
        {"n1": OK, "n2": OK, "n3": (UNS, ANTI), "n4": (UNS, ANTI)},
    ),
    (
        "anti-affinity with namespaceSelector {} sees every namespace",
        [*nodes_2x2(), make_pod("web", "other").labels(app="web").node("n1").obj()],
        make_pod("p").pod_affinity("podAntiAffinity", term(ZONE, ns_selector={}, app="web")).obj(),
        {"n1": (UNS, ANTI), "n2": (UNS, ANTI), "n3": OK, "n4": OK},
    ),
    (
        "anti-affinity with a namespace list that excludes the pod's namespace",
        [*nodes_2x2(), make_pod("web", "other").labels(app="web").node("n1").obj()],
        make_pod("p")
        .pod_affinity("podAntiAffinity", term(ZONE, namespaces=["third"], app="web"))
        .obj(),
        {"n1": OK, "n2": OK, "n3": OK, "n4": OK},
    ),
    (
        "an existing pod's anti-affinity against the incoming pod: the pod's zone",
        [
            *nodes_2x2(),
            make_pod("guard")
            .labels(app="guard")
            .pod_affinity("podAntiAffinity", term(ZONE, app="p"))
            .node("n2")
            .obj(),
        ],
        make_pod("p").labels(app="p").obj(),
        {"n1": (UNS, EXISTING), "n2": (UNS, EXISTING), "n3": OK, "n4": OK},
    ),
    (
        "an existing pod's anti-affinity only covers its own namespace by default",
        [
            *nodes_2x2(),
            make_pod("guard", "other")
            .pod_affinity("podAntiAffinity", term(ZONE, app="p"))
            .node("n2")
            .obj(),
        ],
        make_pod("p").labels(app="p").obj(),
        {"skip": True},
    ),
    (
        "an existing pod's anti-affinity with namespaceSelector {} covers every namespace",
        [
            *nodes_2x2(),
            make_pod("guard", "other")
            .pod_affinity("podAntiAffinity", term(HOST, ns_selector={}, app="p"))
            .node("n3")
            .obj(),
        ],
        make_pod("p").labels(app="p").obj(),
        {"n1": OK, "n2": OK, "n3": (UNS, EXISTING), "n4": OK},
    ),
    (
        "affinity is checked first: UnschedulableAndUnresolvable wins over anti-affinity",
        [
            *nodes_2x2(),
            make_pod("db").labels(app="db").node("n1").obj(),
            make_pod("web").labels(app="web").node("n3").obj(),
        ],
        make_pod("p")
        .pod_affinity("podAffinity", term(ZONE, app="db"))
        .pod_affinity("podAntiAffinity", term(HOST, app="web"))
        .obj(),
        {"n1": OK, "n2": OK, "n3": (UAU, AFF), "n4": (UAU, AFF)},
    ),
    (
        "terminating pods still count for affinity",
        [*nodes_2x2(), make_pod("db").labels(app="db").node("n1").terminating().obj()],
        make_pod("p").pod_affinity("podAffinity", term(HOST, app="db")).obj(),
        {"n1": OK, "n2": (UAU, AFF), "n3": (UAU, AFF), "n4": (UAU, AFF)},
    ),
    (
        "a node without the topology key passes anti-affinity",
        [make_node("nokey").obj(), make_pod("web").labels(app="web").node("nokey").obj()],
        make_pod("p").pod_affinity("podAntiAffinity", term(ZONE, app="web")).obj(),
        {"nokey": OK},
    ),
]


@pytest.mark.parametrize(
    ("objects", "pod", "want"), [c[1:] for c in FILTER_CASES], ids=[c[0] for c in FILTER_CASES]
)
def test_filter(objects: list[dict[str, Any]], pod: dict[str, Any], want: dict[str, Any]) -> None:
    assert filter_all(objects, pod) == want


def test_invalid_selector_rejects_every_node_at_prefilter() -> None:
    bad = {
        "labelSelector": {"matchExpressions": [{"key": "app", "operator": "Bogus"}]},
        "topologyKey": HOST,
    }
    cluster, pl, pending = setup(nodes_2x2(), make_pod("p").pod_affinity("podAffinity", bad).obj())
    _, status = pl.pre_filter(CycleState(), pending, cluster.node_infos)
    assert status.code == UAU
    assert status.reasons[0].startswith("parsing pod:")


# AddPod / RemovePod -----------------------------------------------------------------


def test_remove_pod_lifts_anti_affinity_on_a_clone_only() -> None:
    web_pod = make_pod("web").labels(app="web").node("n1").obj()
    cluster, pl, pending = setup(
        [*nodes_2x2(), web_pod],
        make_pod("p").pod_affinity("podAntiAffinity", term(ZONE, app="web")).obj(),
    )
    state = CycleState()
    pl.pre_filter(state, pending, cluster.node_infos)
    n1 = cluster.node_info_by_name["n1"]
    n2 = cluster.node_info_by_name["n2"]
    assert pl.filter(state, pending, n2).code == UNS

    victim = n1.pods[0]
    dry = state.clone()
    ni = n1.clone()
    ni.remove_pod(victim)
    assert pl.remove_pod(dry, pending, victim, ni).is_success()
    assert pl.filter(dry, pending, ni).is_success()
    assert pl.filter(dry, pending, n2).is_success()  # same zone, so lifted there too
    # The original state is untouched.
    assert pl.filter(state, pending, n2).code == UNS

    assert pl.add_pod(dry, pending, victim, ni).is_success()
    assert pl.filter(dry, pending, n2).code == UNS


def test_add_pod_satisfies_affinity_and_existing_anti_affinity() -> None:
    guard = (
        make_pod("guard")
        .priority(100)
        .nominated("n3")
        .pod_affinity("podAntiAffinity", term(HOST, app="p"))
        .obj()
    )
    dbn = make_pod("dbn").labels(app="db").priority(100).nominated("n2").obj()
    pod = make_pod("p").labels(app="p").pod_affinity("podAffinity", term(HOST, app="db")).obj()
    cluster, pl, pending = setup(
        [*nodes_2x2(), make_pod("db").labels(app="db").node("n1").obj(), guard, dbn], pod
    )
    state = CycleState()
    pl.pre_filter(state, pending, cluster.node_infos)
    n2 = cluster.node_info_by_name["n2"]
    n3 = cluster.node_info_by_name["n3"]
    assert pl.filter(state, pending, n2).code == UAU

    with_nominated = state.clone()
    ni2 = n2.clone()
    ni2.add_pod(cluster.nominated["n2"][0])
    pl.add_pod(with_nominated, pending, cluster.nominated["n2"][0], ni2)
    assert pl.filter(with_nominated, pending, ni2).is_success()

    ni3 = n3.clone()
    ni3.add_pod(cluster.nominated["n3"][0])
    pl.add_pod(with_nominated, pending, cluster.nominated["n3"][0], ni3)
    s = pl.filter(with_nominated, pending, ni3)
    # n3 has no db pod: affinity fails first.
    assert (s.code, s.reasons) == (UAU, [AFF])


def test_existing_anti_affinity_counts_follow_add_and_remove() -> None:
    guard = make_pod("guard").pod_affinity("podAntiAffinity", term(ZONE, app="p")).node("n1").obj()
    cluster, pl, pending = setup([*nodes_2x2(), guard], make_pod("p").labels(app="p").obj())
    state = CycleState()
    _, status = pl.pre_filter(state, pending, cluster.node_infos)
    assert status.is_success()
    n1 = cluster.node_info_by_name["n1"]
    g = n1.pods[0]
    ni = n1.clone()
    ni.remove_pod(g)
    pl.remove_pod(state, pending, g, ni)
    assert pl.filter(state, pending, cluster.node_info_by_name["n2"]).is_success()
    # Re-added on a zone-b node, it now keeps the pod out of zone b.
    n4 = cluster.node_info_by_name["n4"].clone()
    n4.add_pod(g)
    pl.add_pod(state, pending, g, n4)
    assert pl.filter(state, pending, cluster.node_info_by_name["n3"]).code == UNS
    assert pl.filter(state, pending, cluster.node_info_by_name["n1"]).is_success()


# Scoring ----------------------------------------------------------------------------


def scores(
    objects: list[dict[str, Any]], pod: dict[str, Any], config: EngineConfig | None = None
) -> dict[str, int] | None:
    """node -> normalized score over every node; None when PreScore skips."""
    cluster = load_cluster(as_list(*objects))
    pl = InterPodAffinity(Handle(cluster, config or EngineConfig()))
    pending = parse_pending_pod(cluster, pod)
    state = CycleState()
    if pl.pre_score(state, pending, cluster.node_infos).code == Code.SKIP:
        return None
    out = [NodeScore(ni.name, pl.score(state, pending, ni)) for ni in cluster.node_infos]
    pl.normalize_score(state, pending, out)
    return {s.name: s.score for s in out}


def pref(kind: str, weight: int, key: str, **labels: str) -> Any:
    return (
        make_pod("p")
        .labels(app="p")
        .pod_affinity(kind, term(key, **labels), required=False, weight=weight)
    )


def three_nodes() -> list[dict[str, Any]]:
    return [
        make_node("a1").zone("a").obj(),
        make_node("b1").zone("b").obj(),
        make_node("c1").zone("c").obj(),
    ]


SCORE_CASES: list[tuple[str, list[dict[str, Any]], dict[str, Any], dict[str, int] | None]] = [
    (
        "no preferred terms, no existing affinity: skip",
        [*three_nodes(), make_pod("db").labels(app="db").node("a1").obj()],
        make_pod("p").obj(),
        None,
    ),
    (
        "preferred terms that match no pod: skip",
        [*three_nodes(), make_pod("web").labels(app="web").node("a1").obj()],
        pref("podAffinity", 5, ZONE, app="db").obj(),
        None,
    ),
    (
        "preferred affinity: the zone with the matching pod gets 100",
        [*three_nodes(), make_pod("db").labels(app="db").node("b1").obj()],
        pref("podAffinity", 5, ZONE, app="db").obj(),
        {"a1": 0, "b1": 100, "c1": 0},
    ),
    (
        "preferred anti-affinity: the zone with the matching pod gets 0",
        [*three_nodes(), make_pod("db").labels(app="db").node("b1").obj()],
        pref("podAntiAffinity", 5, ZONE, app="db").obj(),
        {"a1": 100, "b1": 0, "c1": 100},
    ),
    (
        # raw: a1 = 3 (affinity), b1 = 3 - 5 = -2, c1 = 0 -> (s - min) / (max - min) * 100
        "mixed weights normalize between min and max",
        [
            *three_nodes(),
            make_pod("db1").labels(app="db").node("a1").obj(),
            make_pod("db2").labels(app="db").node("b1").obj(),
            make_pod("web").labels(app="web").node("b1").obj(),
        ],
        pref("podAffinity", 3, ZONE, app="db")
        .pod_affinity("podAntiAffinity", term(ZONE, app="web"), required=False, weight=5)
        .obj(),
        {"a1": 100, "b1": 0, "c1": 40},
    ),
    (
        # raw a1 = 3, b1 = 2, c1 = 0: b1 is 2/3 of the way, 66.67 truncated as Go's int64()
        "normalized scores are truncated, not rounded",
        [
            *three_nodes(),
            make_pod("db").labels(app="db").node("a1").obj(),
            make_pod("cache").labels(app="cache").node("b1").obj(),
        ],
        pref("podAffinity", 3, ZONE, app="db")
        .pod_affinity("podAffinity", term(ZONE, app="cache"), required=False, weight=2)
        .obj(),
        {"a1": 100, "b1": 66, "c1": 0},
    ),
    (
        "an existing pod's required affinity to the incoming pod counts hardPodAffinityWeight (1)",
        [
            *three_nodes(),
            make_pod("e").pod_affinity("podAffinity", term(ZONE, app="p")).node("c1").obj(),
        ],
        make_pod("p").labels(app="p").obj(),
        {"a1": 0, "b1": 0, "c1": 100},
    ),
    (
        "an existing pod's preferred anti-affinity to the incoming pod",
        [
            *three_nodes(),
            make_pod("e")
            .pod_affinity("podAntiAffinity", term(HOST, app="p"), required=False, weight=7)
            .node("a1")
            .obj(),
        ],
        make_pod("p").labels(app="p").obj(),
        {"a1": 0, "b1": 100, "c1": 100},
    ),
    (
        "existing preferred terms matching to a zero sum still score (all 0)",
        [
            *three_nodes(),
            make_pod("e1")
            .pod_affinity("podAffinity", term(ZONE, app="p"), required=False, weight=4)
            .node("a1")
            .obj(),
            make_pod("e2")
            .pod_affinity("podAntiAffinity", term(ZONE, app="p"), required=False, weight=4)
            .node("a1")
            .obj(),
        ],
        make_pod("p").labels(app="p").obj(),
        {"a1": 0, "b1": 0, "c1": 0},
    ),
    (
        "preferred terms count matching pods of other namespaces only when listed",
        [*three_nodes(), make_pod("db", "other").labels(app="db").node("a1").obj()],
        make_pod("p")
        .pod_affinity(
            "podAffinity", term(ZONE, namespaces=["other"], app="db"), required=False, weight=2
        )
        .obj(),
        {"a1": 100, "b1": 0, "c1": 0},
    ),
]


@pytest.mark.parametrize(
    ("objects", "pod", "want"), [c[1:] for c in SCORE_CASES], ids=[c[0] for c in SCORE_CASES]
)
def test_score(
    objects: list[dict[str, Any]], pod: dict[str, Any], want: dict[str, int] | None
) -> None:
    assert scores(objects, pod) == want


def test_hard_pod_affinity_weight_zero_ignores_existing_required_terms() -> None:
    objects = [
        *three_nodes(),
        make_pod("e").pod_affinity("podAffinity", term(ZONE, app="p")).node("c1").obj(),
    ]
    cfg = EngineConfig()
    cfg.hard_pod_affinity_weight = 0
    assert scores(objects, make_pod("p").labels(app="p").obj(), cfg) is None


def test_ignore_preferred_terms_of_existing_pods_skips_a_pod_without_preferred_terms() -> None:
    # plugin.go PreScore: with IgnorePreferredTermsOfExistingPods and no preferred terms of
    # its own, the pod is not scored at all, whatever the existing pods ask for.
    objects = [
        *three_nodes(),
        make_pod("e").pod_affinity("podAffinity", term(ZONE, app="p")).node("c1").obj(),
    ]
    pod = make_pod("p").labels(app="p").obj()
    assert scores(objects, pod) is not None
    cfg = EngineConfig(ignore_preferred_terms_of_existing_pods=True)
    assert scores(objects, pod, cfg) is None
    assert scores(objects, pref("podAffinity", 5, ZONE, app="p").obj(), cfg) is not None


def test_existing_pods_namespace_selector_sees_empty_namespace_labels() -> None:
    # types.go AffinityTerm.Matches: Namespaces.Has(ns) || NamespaceSelector.Matches(nsLabels).
    # An existing pod's selector is not merged; it meets the incoming pod's namespace labels,
    # which GetNamespaceLabelsSnapshot leaves nil without a Namespace object. A selector that
    # an empty label set satisfies (DoesNotExist) therefore selects the incoming pod; one
    # that needs a label does not.
    absent = {"matchExpressions": [{"key": "team", "operator": "DoesNotExist"}]}
    guard_all = (
        make_pod("g1", "other")
        .pod_affinity("podAntiAffinity", term(HOST, ns_selector=absent, app="p"))
        .node("n1")
        .obj()
    )
    guard_team = (
        make_pod("g2", "other")
        .pod_affinity(
            "podAntiAffinity", term(HOST, ns_selector={"matchLabels": {"team": "x"}}, app="p")
        )
        .node("n3")
        .obj()
    )
    got = filter_all([*nodes_2x2(), guard_all, guard_team], make_pod("p").labels(app="p").obj())
    assert got == {"n1": (UNS, EXISTING), "n2": OK, "n3": OK, "n4": OK}


def test_self_affinity_exception_returns_once_the_last_match_is_removed() -> None:
    # filtering.go satisfyPodAffinity: with affinityCounts empty and the pod matching its own
    # terms, any node with the topology key passes. RemovePod deletes a pair that drops to
    # zero, so removing the only matching pod (a lower-priority victim) opens every node.
    peer = make_pod("peer").labels(app="p").node("n1").obj()
    pod = make_pod("p").labels(app="p").pod_affinity("podAffinity", term(HOST, app="p")).obj()
    cluster, pl, pending = setup([*nodes_2x2(), peer], pod)
    state = CycleState()
    pl.pre_filter(state, pending, cluster.node_infos)
    n1 = cluster.node_info_by_name["n1"]
    n2 = cluster.node_info_by_name["n2"]
    assert pl.filter(state, pending, n1).is_success()
    assert pl.filter(state, pending, n2).code == UAU

    dry = state.clone()
    ni = n1.clone()
    victim = ni.pods[0]
    ni.remove_pod(victim)
    pl.remove_pod(dry, pending, victim, ni)
    assert pl.filter(dry, pending, ni).is_success()
    assert pl.filter(dry, pending, n2).is_success()

    ni.add_pod(victim)
    pl.add_pod(dry, pending, victim, ni)
    assert pl.filter(dry, pending, ni).is_success()
    assert pl.filter(dry, pending, n2).code == UAU


def test_normalize_uses_the_lowest_score_even_when_all_are_negative() -> None:
    # scoring.go NormalizeScore starts minCount at MaxInt64 and maxCount at MinInt64, so
    # all-negative raw scores still spread over [0, 100]: a1 = -5, b1 = -10 ->
    # a1 = 100 * (-5 + 10) / 5 = 100, b1 = 0 (a zero-based minimum would give a1 50).
    objects = [
        make_node("a1").zone("a").obj(),
        make_node("b1").zone("b").obj(),
        make_pod("db1").labels(app="db").node("a1").obj(),
        make_pod("db2").labels(app="db").node("b1").obj(),
        make_pod("db3").labels(app="db").node("b1").obj(),
    ]
    assert scores(objects, pref("podAntiAffinity", 5, ZONE, app="db").obj()) == {
        "a1": 100,
        "b1": 0,
    }
