"""Properties kube-scheduler's own semantics guarantee, checked on random small clusters.

Each invariant comes from the Go code (k8s.io/kubernetes v1.35):
- schedule_one.go: schedulePod/findNodesThatFitPod, FitError.Error();
- framework/preemption/preemption.go: Preempt, DryRunPreemption, SelectCandidate,
  pickOneNodeForPreemption;
- plugins/defaultpreemption/default_preemption.go: SelectVictimsOnNode,
  PodEligibleToPreemptOthers, filterPodsWithPDBViolation.
"""

from __future__ import annotations

import copy
import os
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduling.engine import EngineConfig, analyze, load_cluster
from scheduling.engine.analysis import parse_pending_pod
from scheduling.engine.cluster import Cluster
from scheduling.engine.framework import Code, CycleState, Handle
from scheduling.engine.plugins import names
from scheduling.engine.plugins.registry import POD_DEPENDENT_FILTERS
from scheduling.engine.preemption.defaultpreemption import select_victims_on_node
from scheduling.engine.preemption.evaluator import INT32_OFFSET
from scheduling.engine.result import Result
from scheduling.engine.runtime import Framework
from scheduling.engine.schedule import schedule_pod

from .builders import PodBuilder, as_list, make_node, make_pdb, make_pod, make_priority_class

# INVARIANT_EXAMPLES=5000 for a longer search; the default keeps the file within seconds.
EXAMPLES = int(os.environ.get("INVARIANT_EXAMPLES", "150"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Mixed priorities: negative, zero, user classes and the two system classes.
PRIORITIES = [0, -100, -1, 0, 5, 10, 10, 100, 1000, 2000000000, 2000001000]
# The pending pod: mostly above the running pods, so that preemption has work to do.
PREEMPTOR_PRIORITIES = [1000, 100, 10, 5, 0, -1, 2000000000, 2000001000]
CPUS = ["100m", "250m", "500m", "1", "1500m", "2"]
MEMS = ["64Mi", "256Mi", "512Mi", "1Gi", "1.5Gi"]
APPS = ["a", "b", "c"]
ZONES = ["z1", "z2"]
TAINT_KEYS = ["dedicated", "gpu"]


@dataclass
class Scenario:
    objects: dict[str, Any]
    preemptor: dict[str, Any]
    # "namespace/name" -> node of every bound pod
    bound: dict[str, str]
    pods_by_key: dict[str, dict[str, Any]]


def _rare(draw: st.DrawFn, n: int) -> bool:
    """True about once in n+1 draws (hypothesis favours 0 and the bounds, so not == 0)."""
    return bool(draw(st.integers(0, n)) == 1)


def _ts(i: int) -> str:
    # Unique start times across the whole cluster (unique per node, as the vectors are).
    return f"2025-06-02T{8 + i // 3600:02d}:{(i // 60) % 60:02d}:{i % 60:02d}Z"


def _shape(draw: st.DrawFn, pb: PodBuilder, ports: bool) -> None:
    """Request shapes the resource helper folds together: init containers, sidecars,
    overhead, pod-level resources, ephemeral storage; host ports when asked."""
    if _rare(draw, 5):
        pb.init_container(cpu=draw(st.sampled_from(CPUS)), memory="128Mi")
    if _rare(draw, 5):
        pb.init_container(sidecar=True, cpu=draw(st.sampled_from(["100m", "500m"])))
    if _rare(draw, 6):
        pb.overhead(cpu="100m", memory="64Mi")
    if _rare(draw, 6):
        pb.pod_level(cpu=draw(st.sampled_from(["1", "2"])), memory="1Gi")
    if _rare(draw, 4):
        pb.req(ephemeral=draw(st.sampled_from(["10Gi", "60Gi"])))
    if ports and _rare(draw, 3):
        pb.host_port(draw(st.sampled_from([80, 443])))


@st.composite
def scenarios(
    draw: st.DrawFn,
    placement: bool = False,
    crowded: bool = False,
    rich: bool = False,
    uniform: bool = False,
) -> Scenario:
    """A resource-only scenario; with placement, also taints, node labels and selectors;
    crowded: every node holds pods, so that preemption has candidates to compare;
    rich: init containers, sidecars, overhead, pod-level requests, storage, host ports;
    uniform: look-alike pods on every node, so that candidates tie on all five criteria."""
    n_nodes = draw(st.integers(1, 4))
    node_names = [f"n{i}" for i in range(n_nodes)]
    items: list[dict[str, Any]] = [
        make_priority_class("system-cluster-critical", 2000000000),
        make_priority_class("system-node-critical", 2000001000),
        make_priority_class("low", -1),
        make_priority_class("high", 1000),
    ]
    for name in node_names:
        b = make_node(name).capacity(
            cpu=draw(st.sampled_from(["2", "1", "3", "4"])),
            memory=draw(st.sampled_from(["2Gi", "1Gi", "4Gi"])),
            pods=draw(st.sampled_from(["110", "2", "3", "4", "1"])),
        )
        if draw(st.booleans()):
            b.capacity(gpu=draw(st.sampled_from(["0", "1", "2"])))
        if placement:
            b.zone(draw(st.sampled_from(ZONES)))
            if _rare(draw, 3):
                b.taint(draw(st.sampled_from(TAINT_KEYS)), "true", "NoSchedule")
            if _rare(draw, 7):
                b.unschedulable()
        items.append(b.obj())

    bound: dict[str, str] = {}
    pods_by_key: dict[str, dict[str, Any]] = {}
    n_pods = 0
    prios = [0, 10] if uniform else PRIORITIES
    cpus = ["1", "500m"] if uniform else CPUS
    steps = [60] if uniform else [60, 120, 7]
    mems = ["256Mi"] if uniform else MEMS
    for node in node_names:
        # Start times are unique on a node but repeat across nodes, so that candidates
        # can tie on every criterion.
        clock = 0
        for _ in range(draw(st.integers(2 if crowded else 0, 4))):
            i = n_pods
            n_pods += 1
            clock += draw(st.sampled_from(steps))
            # A few pods live in another namespace: the default namespace's budgets skip them.
            ns = "team" if _rare(draw, 5) else "default"
            pb = (
                make_pod(f"r{i}", ns)
                .priority(draw(st.sampled_from(prios)))
                .req(cpu=draw(st.sampled_from(cpus)), memory=draw(st.sampled_from(mems)))
                .labels(app=draw(st.sampled_from(APPS)))
                .node(node)
                .start_time(_ts(clock))
            )
            if _rare(draw, 5):
                pb.req(gpu="1")
            if _rare(draw, 6):
                pb.terminating(by_preemption=draw(st.booleans()))
            if rich:
                _shape(draw, pb, ports=True)
            pod = pb.obj()
            items.append(pod)
            bound[f"{ns}/r{i}"] = node
            pods_by_key[f"{ns}/r{i}"] = pod

    for i in range(draw(st.integers(0, 2))):
        nb = (
            make_pod(f"nom{i}")
            .priority(draw(st.sampled_from(PRIORITIES)))
            .req(cpu=draw(st.sampled_from(CPUS)))
            .nominated(draw(st.sampled_from(node_names)))
        )
        items.append(nb.obj())

    for i in range(draw(st.integers(0, 2))):
        app = draw(st.sampled_from(APPS))
        disrupted = [f"r{draw(st.integers(0, max(n_pods - 1, 0)))}"] if draw(st.booleans()) else []
        expr = {"matchExpressions": [{"key": "app", "operator": "In", "values": [app, "c"]}]}
        items.append(
            make_pdb(
                f"pdb{i}",
                match_labels={"app": app},
                selector=expr if _rare(draw, 3) else None,
                disruptions_allowed=draw(st.integers(0, 2)),
                disrupted_pods=disrupted,
            )
        )

    pre = make_pod("preemptor").req(
        cpu=draw(st.sampled_from(["1", "500m", "1500m", "250m", "2", "100m"])),
        memory=draw(st.sampled_from(["512Mi", "256Mi", "1Gi", "64Mi", "1.5Gi"])),
    )
    how = draw(st.sampled_from(["priority", "class", "priority", "none"]))
    if how == "priority":
        pre.priority(draw(st.sampled_from(PREEMPTOR_PRIORITIES)))
    elif how == "class":
        pre.priority_class(
            draw(
                st.sampled_from(["high", "low", "system-cluster-critical", "system-node-critical"])
            )
        )
    if _rare(draw, 4):
        pre.req(gpu="1")
    if _rare(draw, 6):
        pre.preemption_policy("Never")
    if rich:
        _shape(draw, pre, ports=True)
    if _rare(draw, 4):
        pre.nominated(draw(st.sampled_from(node_names)))
    if placement:
        if draw(st.booleans()):
            pre.toleration(draw(st.sampled_from(TAINT_KEYS)), "true", "NoSchedule")
        if _rare(draw, 2):
            pre.node_selector(**{"topology.kubernetes.io/zone": draw(st.sampled_from(ZONES))})
        if _rare(draw, 3):
            pre.node_affinity_in(
                "kubernetes.io/hostname",
                *sorted(draw(st.sets(st.sampled_from(node_names), min_size=1))),
            )
    return Scenario(as_list(*items), pre.obj(), bound, pods_by_key)


def _without(objects: dict[str, Any], drop: set[str]) -> dict[str, Any]:
    out = copy.deepcopy(objects)
    out["items"] = [
        o
        for o in out["items"]
        if not (
            o["kind"] == "Pod"
            and f"{o['metadata'].get('namespace', 'default')}/{o['metadata']['name']}" in drop
        )
    ]
    return out


def _cluster_fingerprint(c: Cluster) -> Any:
    return (
        [
            (ni.name, [p.key for p in ni.pods], sorted(ni.requested.items()), sorted(ni.used_ports))
            for ni in c.node_infos
        ],
        sorted((n, [p.key for p in ps]) for n, ps in c.nominated.items() if ps),
        [(p.key, p.node_name, p.priority) for p in c.pods],
        [(pdb.name, pdb.disruptions_allowed) for pdb in c.pdbs],
    )


def _criteria(c: dict[str, Any]) -> tuple[int, int, int, int, int]:
    """pickOneNodeForPreemption's five keys as "smaller is better"."""
    from datetime import datetime

    start = c["highest_victims_earliest_start"]
    ns = int(datetime.fromisoformat(start.replace("Z", "+00:00")).timestamp()) if start else 0
    return (
        c["pdb_violations"],
        c["highest_victim_priority"],
        c["priority_sum"] + INT32_OFFSET * c["victim_count"],
        c["victim_count"],
        -ns,
    )


HIST = re.compile(r"^(\d+) (.+)$")


def _histogram(part: str) -> Counter[str]:
    """Parse "1 Insufficient cpu, 2 node(s) had ...." into a Counter."""
    part = part.rstrip(".")
    got: Counter[str] = Counter()
    if not part:
        return got
    for item in part.split(", "):
        m = HIST.match(item)
        assert m, (item, part)
        got[m.group(2)] += int(m.group(1))
    return got


def check_all(sc: Scenario) -> None:
    cluster = load_cluster(sc.objects)
    before = _cluster_fingerprint(cluster)
    res = analyze(cluster, sc.preemptor)
    d = res.to_dict()
    # 1. analyze never mutates the cluster: the same answer twice, the same indexes, and
    # a fresh load gives the same answer too.
    assert analyze(cluster, sc.preemptor).to_dict() == d
    assert _cluster_fingerprint(cluster) == before
    assert analyze(sc.objects, sc.preemptor).to_dict() == d

    node_names = [n.name for n in cluster.nodes]
    check_outcome(sc, res, d)
    check_candidates(sc, d)
    check_rejected(res, d, node_names)
    check_message(res, d, len(node_names))
    check_victims_make_room(sc, res, d)
    check_fast_path_matches_general_path(sc)
    assert _cluster_fingerprint(cluster) == before


def check_outcome(sc: Scenario, res: Result, d: dict[str, Any]) -> None:
    # 2. schedulePod returns a host iff findNodesThatFitPod found a feasible node.
    assert (d["outcome"] == "fits") == bool(d["feasible_nodes"])
    assert d["feasible_nodes"] == sorted(set(d["feasible_nodes"]))
    nominated = sc.preemptor["status"].get("nominatedNodeName")
    if d["outcome"] == "fits":
        assert d["node"] in d["feasible_nodes"]
        assert d["victims"] == [] and d["candidates"] == []
        if nominated in d["feasible_nodes"]:
            # evaluateNominatedNode: a nominated node that passes the filters is taken.
            assert d["node"] == nominated
        return
    assert d["eligible"] == _expected_eligibility(sc, res, d["priority"]), d
    if not d["eligible"]:
        # PodEligibleToPreemptOthers said no: Preempt stops before the dry run.
        assert d["candidates"] == [] and d["outcome"] == "unschedulable"
        assert d["ineligible_reason"]
        if d["preemption_policy"] == "Never":
            assert d["ineligible_reason"] == "not eligible due to preemptionPolicy=Never."
    else:
        assert d["ineligible_reason"] is None
        assert d["preemption_policy"] != "Never"
    # Preempt returns a nomination iff DryRunPreemption found a candidate.
    assert (d["outcome"] == "preempts") == bool(d["candidates"])
    if d["outcome"] == "unschedulable":
        assert d["node"] is None and d["victims"] == [] and d["tied_nodes"] == []
        return
    assert d["eligible"]
    winner = d["candidates"][0]
    assert winner["node"] == d["node"]
    assert winner["victims"] == d["victims"]
    assert winner["pdb_violations"] == d["pdb_violations"]
    assert d["victims"], "a candidate always has at least one victim"
    assert len(set(d["victims"])) == len(d["victims"])
    assert d["node"] in d["tied_nodes"]
    for v in d["victims"]:
        # Only pods bound to the nominated node, and only lower-priority ones
        # (isPreemptionAllowed: podPriority(victim) < podPriority(preemptor)).
        assert sc.bound.get(v) == d["node"], (v, d["node"])
        assert sc.pods_by_key[v]["spec"]["priority"] < d["priority"]


def _terminating_by_preemption(pod: dict[str, Any]) -> bool:
    if not pod["metadata"].get("deletionTimestamp"):
        return False
    for cond in pod["status"].get("conditions", []):
        if cond["type"] == "DisruptionTarget":
            return bool(cond["status"] == "True" and cond["reason"] == "PreemptionByScheduler")
    return False


def _expected_eligibility(sc: Scenario, res: Result, priority: int) -> bool:
    """PodEligibleToPreemptOthers."""
    if sc.preemptor["spec"].get("preemptionPolicy") == "Never":
        return False
    nominated = sc.preemptor["status"].get("nominatedNodeName")
    if not nominated:
        return True
    status = {r.node: r.status for r in res.rejected_nodes}.get(nominated)
    if status is None or status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
        return True  # the nominated node is hopeless: look for another one
    return not any(
        sc.bound[k] == nominated
        and pod["spec"]["priority"] < priority
        and _terminating_by_preemption(pod)
        for k, pod in sc.pods_by_key.items()
    )


def check_candidates(sc: Scenario, d: dict[str, Any]) -> None:
    cands = d["candidates"]
    assert len({c["node"] for c in cands}) == len(cands)
    for c in cands:
        assert c["victims"] and c["victim_count"] == len(c["victims"])
        assert set(c["violating_victims"]) <= set(c["victims"])
        assert c["pdb_violations"] == len(c["violating_victims"])
    if not cands:
        # (For "fits" tied_nodes holds the top-scored tie instead.)
        if d["outcome"] != "fits":
            assert d["tied_nodes"] == []
        return
    # 4. Best first: the criteria tuples never get better down the list (the sequential
    # filtering of pickOneNodeForPreemption is a lexicographic maximum).
    keys = [_criteria(c) for c in cands]
    assert keys == sorted(keys), keys
    assert cands[0]["eliminated_by"] is None
    assert all(c["eliminated_by"] is not None for c in cands[1:])
    equal = sorted(c["node"] for c in cands if _criteria(c) == keys[0])
    # Every node pickOneNodeForPreemption could return, the winner included.
    assert d["tied_nodes"] == equal
    names = ["pdb_violations", "highest_priority", "priority_sum", "victim_count", "start_time"]
    for c, k in zip(cands[1:], keys[1:], strict=True):
        if k == keys[0]:
            assert c["eliminated_by"] == "tie"
        else:
            # The first criterion on which it differs from the winner eliminated it.
            first = next(i for i in range(5) if k[i] != keys[0][i])
            assert c["eliminated_by"] == names[first], (c, keys[0])
    # Victims are reported most important first (util.MoreImportantPod order: higher
    # priority, then earlier start), which is why highest_victim_priority is victims[0].
    for c in cands:
        order = [
            (-sc.pods_by_key[v]["spec"]["priority"], sc.pods_by_key[v]["status"]["startTime"])
            for v in c["victims"]
        ]
        assert order == sorted(order), c
        assert c["highest_victim_priority"] == -order[0][0]
        assert c["priority_sum"] == -sum(o[0] for o in order)


def check_rejected(res: Result, d: dict[str, Any], node_names: list[str]) -> None:
    # 5. Every node that is not feasible is rejected, once, with its reasons.
    rejected = [r["node"] for r in d["rejected_nodes"]]
    assert len(rejected) == len(set(rejected))
    assert set(rejected) == set(node_names) - set(d["feasible_nodes"])
    cand_nodes = {c["node"] for c in d["candidates"]}
    for r in res.rejected_nodes:
        assert r.status.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
        assert r.status.reasons
        # Preempt only dry-runs nodes whose status is exactly Unschedulable
        # (nodesWherePreemptionMightHelp).
        if r.status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
            assert not r.preemption_can_help
        assert r.preemption_can_help == (r.node in cand_nodes)
    pre = res.preemption
    if pre is not None and pre.eligible:
        potential = sorted(
            r.node for r in res.rejected_nodes if r.status.code == Code.UNSCHEDULABLE
        )
        assert pre.potential_nodes == potential
        assert set(pre.node_statuses) | cand_nodes == set(potential)
        assert not set(pre.node_statuses) & cand_nodes


def check_message(res: Result, d: dict[str, Any], n_nodes: int) -> None:
    # 6. FitError.Error(): "0/N nodes are available: <sorted histogram>." + PostFilter msg.
    if d["outcome"] == "fits":
        assert d["message"] == ""
        return
    msg = d["message"]
    head = f"0/{n_nodes} nodes are available: "
    assert msg.startswith(head), msg
    rest = msg[len(head) :]
    filt, _, post = rest.partition(". ")
    if not post and rest.endswith("."):
        filt = rest
    expected = Counter(reason for r in d["rejected_nodes"] for reason in r["reasons"])
    hist = _histogram(filt)
    assert hist == expected, (msg, expected)
    parts = filt.rstrip(".").split(", ")
    assert parts == sorted(parts)
    if d["outcome"] == "preempts":
        assert post == "", msg
        return
    prefix = "no new claims to deallocate, preemption: "
    assert post.startswith(prefix), msg
    tail = post[len(prefix) :]
    if not d["eligible"]:
        assert tail == d["ineligible_reason"]
        return
    # The preemption FitError: every node once, the dry-run statuses for nodes that
    # were tried, "Preemption is not helpful" for the rest.
    assert tail.startswith(head), msg
    pre = res.preemption
    assert pre is not None
    want = Counter(reason for s in pre.node_statuses.values() for reason in s.reasons)
    missing = n_nodes - len(pre.node_statuses)
    if missing:
        want["Preemption is not helpful for scheduling"] += missing
    assert _histogram(tail[len(head) :]) == want, msg


def check_victims_make_room(sc: Scenario, res: Result, d: dict[str, Any]) -> None:
    # 3. SelectVictimsOnNode removed every lower-priority pod, checked the pod fits
    # (with the nominated pods of equal or higher priority, which the re-analysis adds
    # in the same way: the victims are bound pods, the nominator is untouched), then
    # reprieved greedily. So without a candidate's victims the pod fits on that node,
    # and since each victim failed its reprieve against a subset of what is left, adding
    # any one back makes it not fit (resources, pod count, taints and node labels are
    # monotone in the node's pods). Checked for every candidate, the winner included.
    for c in d["candidates"]:
        node = c["node"]
        victims = set(c["victims"])
        again = analyze(_without(sc.objects, victims), sc.preemptor).to_dict()
        assert node in again["feasible_nodes"], (node, victims, again)
        for v in victims:
            back = analyze(_without(sc.objects, victims - {v}), sc.preemptor).to_dict()
            assert node not in back["feasible_nodes"], (node, v, back["feasible_nodes"])
    pre = res.preemption
    if pre is None or not pre.eligible:
        return
    for node, status in pre.node_statuses.items():
        lower = {
            k
            for k, n in sc.bound.items()
            if n == node and sc.pods_by_key[k]["spec"]["priority"] < d["priority"]
        }
        if not lower:
            # Nothing may be preempted there: the dry run says so and nothing else.
            assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
            assert status.reasons == ["No preemption victims found for incoming pod"]
            continue
        # Not a candidate although some pods are preemptible: even without all of them
        # the pod does not fit there.
        assert status.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
        again = analyze(_without(sc.objects, lower), sc.preemptor).to_dict()
        assert node not in again["feasible_nodes"], (node, lower, status)


def check_fast_path_matches_general_path(sc: Scenario) -> None:
    """The resources-only shortcut of SelectVictimsOnNode must give exactly what the
    general algorithm (NodeInfo copies, every filter with nominated pods) gives."""
    cluster = load_cluster(sc.objects)
    pending = parse_pending_pod(cluster, sc.preemptor)
    fw = Framework(Handle(cluster, EngineConfig()))
    state = CycleState()
    sched = schedule_pod(fw, state, pending)
    if sched.host is not None:
        return
    active = {p.name for p in fw.filter_plugins} - state.skip_filter_plugins
    if (POD_DEPENDENT_FILTERS & active) - {names.NODE_RESOURCES_FIT}:
        return  # Preempt would not take the shortcut (host ports, affinity, spread)
    for ni in cluster.node_infos:
        if sched.diagnosis.get(ni.name).code != Code.UNSCHEDULABLE:
            continue
        fast, fs = select_victims_on_node(fw, state.clone(), pending, ni, True)
        slow, ss = select_victims_on_node(fw, state.clone(), pending, ni, False)
        assert (fs.code, sorted(fs.reasons)) == (ss.code, sorted(ss.reasons)), (ni.name, fs, ss)
        if fast is None or slow is None:
            assert fast is None and slow is None
            continue
        assert [p.key for p in fast.pods] == [p.key for p in slow.pods], ni.name
        assert fast.num_pdb_violations == slow.num_pdb_violations
        assert [p.key for p in fast.violating] == [p.key for p in slow.violating]
    assert _cluster_fingerprint(cluster) == _cluster_fingerprint(load_cluster(sc.objects))


@SETTINGS
@given(scenarios())
def test_resource_only_invariants(sc: Scenario) -> None:
    check_all(sc)


@SETTINGS
@given(scenarios(placement=True))
def test_placement_invariants(sc: Scenario) -> None:
    check_all(sc)


@SETTINGS
@given(scenarios(crowded=True))
def test_crowded_invariants(sc: Scenario) -> None:
    check_all(sc)


@SETTINGS
@given(scenarios(crowded=True, uniform=True))
def test_tied_candidates_invariants(sc: Scenario) -> None:
    check_all(sc)


@SETTINGS
@given(scenarios(crowded=True, rich=True))
def test_rich_pod_shapes_invariants(sc: Scenario) -> None:
    check_all(sc)


@SETTINGS
@given(scenarios(placement=True, crowded=True, rich=True))
def test_everything_together_invariants(sc: Scenario) -> None:
    check_all(sc)


@settings(max_examples=max(EXAMPLES // 3, 20), deadline=None)
@given(scenarios(), scenarios())
def test_analyses_on_one_cluster_are_independent(a: Scenario, b: Scenario) -> None:
    # 1. A Cluster is parsed once and asked many what-ifs: an earlier analysis never
    # changes a later one.
    cluster = load_cluster(a.objects)
    analyze(cluster, b.preemptor)
    first = analyze(cluster, a.preemptor).to_dict()
    analyze(cluster, b.preemptor)
    assert analyze(cluster, a.preemptor).to_dict() == first
    assert first == analyze(a.objects, a.preemptor).to_dict()
