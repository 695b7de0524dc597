"""DryRunPreemption's sampling: the share of kube-scheduler's random offsets that
nominate each node, checked against running every offset on its own."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from scheduling.engine import analyze, load_cluster
from scheduling.engine.config import EngineConfig

from .builders import as_list, make_node, make_pdb, make_pod, make_priority_class


def _cluster(seed: int, nodes: int) -> dict[str, Any]:
    """Full nodes whose low-priority pods differ in priority, count, start and PDBs."""
    rng = random.Random(seed)
    items: list[dict[str, Any]] = [make_priority_class("top", 1000)]
    for i in range(nodes):
        name = f"node-{i:02d}"
        items.append(make_node(name).capacity(cpu="4", memory="16Gi", pods="50").obj())
        left = 4000
        j = 0
        while left > 0:
            cpu = min(left, rng.choice((500, 1000, 2000)))
            left -= cpu
            app = rng.choice(("a", "b", "c"))
            items.append(
                make_pod(f"p-{i:02d}-{j}")
                .labels(app=app)
                .priority(rng.choice((10, 20, 30)))
                .req(cpu=f"{cpu}m")
                .node(name)
                .start_time(f"2025-06-01T0{rng.randint(0, 9)}:00:00Z")
                .obj()
            )
            j += 1
    items.append(make_pdb("pdb-a", match_labels={"app": "a"}, disruptions_allowed=0))
    return as_list(*items)


def _pod() -> dict[str, Any]:
    return make_pod("urgent").priority(1000).req(cpu="1500m").obj()


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize(("percentage", "absolute"), [(10, 2), (25, 0), (10, 100), (0, 5)])
def test_the_shares_are_every_offset_run_on_its_own(
    seed: int, percentage: int, absolute: int
) -> None:
    cluster = load_cluster(_cluster(seed, nodes=12))
    args = {
        "min_candidate_nodes_percentage": percentage,
        "min_candidate_nodes_absolute": absolute,
    }
    exhaustive = analyze(cluster, _pod(), EngineConfig(**args)).to_dict()
    sampling = exhaustive["sampling"]
    n = sampling["potential_nodes"]
    assert n == 12
    direct: Counter[str] = Counter()
    for offset in range(n):
        one = analyze(cluster, _pod(), EngineConfig(**args, preemption_offset=offset)).to_dict()
        assert one["sampling"]["nominated"] == [{"node": one["node"], "share": 1.0}]
        direct[one["node"]] += 1
    got = {s["node"]: s["share"] for s in sampling["nominated"]}
    assert got == pytest.approx({node: k / n for node, k in direct.items()})
    assert sum(got.values()) == pytest.approx(1.0)
    if sampling["window"] >= n:  # kube-scheduler looks at every node: the exhaustive answer
        assert sampling["nominated"] == [{"node": exhaustive["node"], "share": 1.0}]
    else:  # on these clusters a short window leads to different nodes
        assert len(sampling["nominated"]) > 1


def test_a_given_offset_stops_where_the_real_dry_run_stops() -> None:
    cluster = load_cluster(_cluster(3, nodes=12))
    # 25% of 12 potential nodes: the dry run stops once it holds 3 candidates, one of
    # them without a PDB violation, having started at the 5th potential node.
    args = {"min_candidate_nodes_percentage": 25, "min_candidate_nodes_absolute": 0}
    every = analyze(cluster, _pod(), EngineConfig(**args)).to_dict()["candidates"]
    clean = {c["node"]: c["pdb_violations"] == 0 for c in every}
    expected, any_clean = [], False
    for i in (*range(4, 12), *range(4)):
        node = f"node-{i:02d}"
        if node in clean:
            expected.append(node)
            any_clean = any_clean or clean[node]
            if any_clean and len(expected) >= 3:
                break
    got = analyze(cluster, _pod(), EngineConfig(**args, preemption_offset=4)).to_dict()
    assert sorted(c["node"] for c in got["candidates"]) == sorted(expected)
    assert got["node"] in expected
    assert len(expected) < len(every)  # it did stop early


def test_no_preemption_no_sampling() -> None:
    snapshot = as_list(make_node("n1").capacity(cpu="4", memory="8Gi", pods="10").obj())
    assert analyze(snapshot, make_pod("small").req(cpu="1").obj()).to_dict()["sampling"] is None


# Kubernetes' own TestDryRunPreemption rows that set DefaultPreemptionArgs (5 nodes,
# one pod each of "largeRes"; the preemptor too), with the offsets its seeded random
# source gives them (4, then 1 and 3).
MID, HIGH, VERY_HIGH = 100, 1000, 10000


def _upstream(
    priorities: dict[str, int], foo: tuple[str, ...] = (), pdb: bool = False
) -> dict[str, Any]:
    items: list[dict[str, Any]] = []
    for i in range(1, 6):
        node = f"node{i}"
        items.append(make_node(node).capacity(cpu="500m", memory="500Mi", pods="10").obj())
        b = make_pod(f"p{i}").priority(priorities.get(node, MID)).req(cpu="300m", memory="300Mi")
        if node in foo:
            b = b.labels(app="foo")
        items.append(b.node(node).obj())
    if pdb:
        items.append(make_pdb("foo", match_labels={"app": "foo"}, disruptions_allowed=0))
    return as_list(*items)


def _candidates(snapshot: dict[str, Any], offset: int, percentage: int, absolute: int) -> set[str]:
    config = EngineConfig(
        min_candidate_nodes_percentage=percentage,
        min_candidate_nodes_absolute=absolute,
        preemption_offset=offset,
    )
    pod = make_pod("p").priority(HIGH).req(cpu="300m", memory="300Mi").obj()
    return {c["node"] for c in analyze(snapshot, pod, config).to_dict()["candidates"]}


@pytest.mark.parametrize(
    ("name", "snapshot", "args", "offsets", "expected"),
    [
        (
            "all nodes are possible candidates, but DefaultPreemptionArgs limits to 2",
            _upstream({}),
            (40, 1),
            [4],
            [{"node1", "node5"}],
        ),
        (
            "some nodes are not possible candidates, DefaultPreemptionArgs limits to 2",
            _upstream({"node2": VERY_HIGH, "node5": VERY_HIGH}),
            (40, 1),
            [4],
            [{"node1", "node3"}],
        ),
        (
            "preemption offset across multiple scheduling cycles and wrap around",
            _upstream({}),
            (40, 1),
            [4, 1, 3],
            [{"node1", "node5"}, {"node2", "node3"}, {"node4", "node5"}],
        ),
        (
            "preemption looks past numCandidates until a non-PDB violating node is found",
            _upstream({}, foo=("node1", "node2", "node5"), pdb=True),
            (40, 2),
            [4],
            [{"node1", "node3", "node5"}],
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_kubernetes_dry_run_preemption_rows(
    name: str,
    snapshot: dict[str, Any],
    args: tuple[int, int],
    offsets: list[int],
    expected: list[set[str]],
) -> None:
    got = [_candidates(snapshot, offset, *args) for offset in offsets]
    assert got == expected, name
