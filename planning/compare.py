"""Two answers side by side, the difference said in one sentence first.

Plain Python over what an analysis stores (no Django): a single pod's result
contract (``Analysis.result``, or ``whatif --format json``) with the victims'
details of its explanation, or a workload's stored run (``Analysis.simulation``).
Each is read once into an ``Answer``; ``compare`` puts two of them side by side
and says what changed from A to B. The typical questions: class A against class
B for the same pod, a workload with and without its victims recreated, last
week's snapshot against today's. The kinds may be mixed: a pod and a workload
are compared on the same terms (outcome, nodes, victims, budgets, replicas).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from scheduling.analyses.workloads import WorkloadRun
from scheduling.engine import VictimDetail
from scheduling.engine.words import NAMES_IN_A_SENTENCE, join_names, plural

POD, WORKLOAD = "pod", "workload"
FITS, PREEMPTS, UNSCHEDULABLE = "fits", "preempts", "unschedulable"


@dataclass(frozen=True)
class OwnerCount:
    """An owner's pods in one answer: running at the end (None: the answer does not
    say, as a single pod's result names its victims but not their owners' size) and
    how many the what-if added (its own replicas) or took away (victims)."""

    running: int | None
    change: int


@dataclass(frozen=True)
class Answer:
    """What one analysis answered, on the terms both kinds share."""

    kind: str  # POD | WORKLOAD
    pod: str  # "namespace/name" of the pod; a workload: its objects ("Deployment default/web")
    priority_class: str | None
    priority: int | None
    outcome: str  # FITS | PREEMPTS | UNSCHEDULABLE; a workload: all-run | some-run | none-run
    node: str | None  # a pod: the node it is bound to or nominated for
    nodes: tuple[str, ...]  # every node the pods asked about run on, sorted
    victims: tuple[str, ...]  # sorted
    pdb_violations: int  # a pod: the contract's count; a workload: pods beyond budgets
    pdbs: tuple[str, ...]  # budgets broken (sorted); a pod: known from its victims' details
    placed: int  # of the pods asked about, how many run (or are nominated) at the end
    asked: int
    owners: Mapping[str, OwnerCount]  # "ReplicaSet default/blue-tcsrb" -> its count
    # A pod whose node is one of several that tie (the top score, or every preemption
    # criterion): all of them, sorted; kube-scheduler binds or nominates one at random,
    # ``node`` is the first by name. Empty when the node was the only choice.
    tied: tuple[str, ...] = ()
    # A workload run with the cascade: victims its controllers made again, and how many
    # of those run at the end (None: a run without the cascade, or a single pod).
    recreated: int | None = None
    recreated_running: int | None = None
    # Which analysis, on which snapshot: set by whoever read it from storage.
    analysis: int = 0
    snapshot_id: int = 0
    snapshot: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "analysis": self.analysis,
            "snapshot": {"id": self.snapshot_id, "name": self.snapshot},
            "kind": self.kind,
            "pod": self.pod,
            "priority_class": self.priority_class,
            "priority": self.priority,
            "outcome": self.outcome,
            "node": self.node,
            "nodes": list(self.nodes),
            "tied_nodes": list(self.tied),
            "victims": list(self.victims),
            "pdb_violations": self.pdb_violations,
            "pdbs": list(self.pdbs),
            "placed": self.placed,
            "asked": self.asked,
            "recreated": self.recreated,
            "recreated_running": self.recreated_running,
        }


def _owner_label(owner: str | None, namespace: str, pod: str) -> str:
    """ "ReplicaSet default/blue-tcsrb" from the engine's "ReplicaSet/blue-tcsrb"; a pod
    no controller owns stands for itself ("Pod default/debug")."""
    if not owner:
        return f"Pod {pod}"
    kind, _, name = owner.partition("/")
    return f"{kind} {namespace}/{name}"


def broken_budgets(victims: Iterable[VictimDetail]) -> tuple[str, ...]:
    """The PDBs the victims exceed, as filterPodsWithPDBViolation counts them: a budget is
    broken when more of its pods go than it allows. A budget whose allowance was not
    kept (analyses stored before it was) counts as broken when a violating victim has it."""
    victims = list(victims)
    taken: Counter[str] = Counter(p.pdb for v in victims for p in v.pdbs)
    broken = set()
    for v in victims:
        for p in v.pdbs:
            if p.disruptions_allowed is None:
                if v.violates_pdb:
                    broken.add(p.pdb)
            elif taken[p.pdb] > p.disruptions_allowed:
                broken.add(p.pdb)
    return tuple(sorted(broken))


def pod_answer(
    result: Mapping[str, Any],
    victims: Sequence[VictimDetail] = (),
    *,
    analysis: int = 0,
    snapshot_id: int = 0,
    snapshot: str = "",
) -> Answer:
    """A single pod's answer from its result contract; ``victims``: the explanation's
    victim details (owners and budgets), when it kept them."""
    outcome = str(result["outcome"])
    node = result.get("node")
    # The contract's tied_nodes: the top-scored nodes of a fit, the preemption tie set.
    tied = tuple(sorted(result.get("tied_nodes") or ()))
    names = tuple(sorted(result.get("victims") or ()))
    detail = {v.key: v for v in victims}
    owners: Counter[str] = Counter()
    for key in names:
        v = detail.get(key)
        namespace = key.partition("/")[0]
        owners[_owner_label(v.owner if v else None, namespace, key)] += 1
    return Answer(
        kind=POD,
        pod=str(result["pod"]),
        priority_class=result.get("priority_class"),
        priority=result.get("priority"),
        outcome=outcome,
        node=node,
        nodes=(node,) if node and outcome != UNSCHEDULABLE else (),
        victims=names,
        pdb_violations=int(result.get("pdb_violations") or 0),
        pdbs=broken_budgets(detail[k] for k in names if k in detail),
        placed=0 if outcome == UNSCHEDULABLE else 1,
        asked=1,
        owners={o: OwnerCount(running=None, change=-n) for o, n in sorted(owners.items())},
        tied=tied if len(tied) > 1 and outcome != UNSCHEDULABLE else (),
        analysis=analysis,
        snapshot_id=snapshot_id,
        snapshot=snapshot,
    )


def workload_answer(
    simulation: Mapping[str, Any], *, analysis: int = 0, snapshot_id: int = 0, snapshot: str = ""
) -> Answer:
    """A workload's answer from its stored run (``Analysis.simulation``): its own pods
    grouped by the object that made them, the victims' owners before and after the run
    (with the cascade, a recreated victim running again counts for its owner)."""
    run = WorkloadRun.from_json(simulation)
    submitted = run.submitted
    bound = {p.pod: p for p in submitted if p.bound}
    owners: dict[str, OwnerCount] = {}
    for o in run.objects:
        running = sum(1 for k in o.pod_keys if k in bound)
        owners[f"{o.kind} {o.namespace}/{o.name}"] = OwnerCount(running=running, change=running)
    for r in run.owners:
        label = _owner_label(r.owner, r.namespace, "")
        owners[label] = OwnerCount(running=r.after, change=r.after - r.before)
    # Victims no controller owns are not among run.owners: each is one pod lost.
    for v in run.victims:
        if not v.owner:
            owners[_owner_label(None, v.namespace, v.pod)] = OwnerCount(running=0, change=-1)
    first = submitted[0] if submitted else None
    exceeded = run.exceeded_pdbs
    # The pods the victims' controllers made again (the stored pods do not say which).
    remade = {r.pod for r in run.recreated}
    return Answer(
        kind=WORKLOAD,
        pod=", ".join(f"{o.kind} {o.key}" for o in run.objects),
        priority_class=first.priority_class if first else None,
        priority=first.priority if first else None,
        outcome=run.outcome.value,
        node=None,
        nodes=tuple(sorted({p.node for p in bound.values() if p.node})),
        victims=tuple(sorted({v.pod for v in run.victims})),
        pdb_violations=sum(r.overrun for r in exceeded),
        pdbs=tuple(sorted(r.pdb for r in exceeded)),
        placed=len(bound),
        asked=len(submitted),
        owners=dict(sorted(owners.items())),
        recreated=len(run.recreated) if run.recreate_victims else None,
        recreated_running=(
            sum(1 for p in run.pods if p.pod in remade and p.bound)
            if run.recreate_victims
            else None
        ),
        analysis=analysis,
        snapshot_id=snapshot_id,
        snapshot=snapshot,
    )


@dataclass(frozen=True)
class OwnerRow:
    owner: str
    a: OwnerCount | None  # None: the owner does not appear in that answer
    b: OwnerCount | None


@dataclass(frozen=True)
class Comparison:
    sentence: str
    same: bool
    a: Answer
    b: Answer
    victims_added: tuple[str, ...]  # preempted in B, not in A
    victims_removed: tuple[str, ...]  # preempted in A, not in B
    victims_kept: tuple[str, ...]  # preempted in both
    pdbs_added: tuple[str, ...]
    pdbs_removed: tuple[str, ...]
    owners: tuple[OwnerRow, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "sentence": self.sentence,
            "same": self.same,
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "victims_added": list(self.victims_added),
            "victims_removed": list(self.victims_removed),
            "victims_kept": list(self.victims_kept),
            "pdbs_added": list(self.pdbs_added),
            "pdbs_removed": list(self.pdbs_removed),
            "owners": [
                {
                    "owner": r.owner,
                    "a": asdict(r.a) if r.a else None,
                    "b": asdict(r.b) if r.b else None,
                }
                for r in self.owners
            ],
        }


# --- the sentence ----------------------------------------------------------------------------


def _names(names: Sequence[str]) -> str:
    return join_names(list(names), limit=NAMES_IN_A_SENTENCE)  # the page lists them all


# What a tie set is followed by, in the sentence and the table.
TIED = "tied; kube-scheduler picks one at random"


def places(answer: Answer) -> frozenset[str]:
    """Every node the answer's pods may end on: a tie's whole set, else its nodes."""
    return frozenset(answer.tied or answer.nodes)


def moved(a: Answer, b: Answer) -> bool:
    """Whether B lands elsewhere than A. Two ties that share a node are not a move:
    kube-scheduler may pick that node in both."""
    if a.tied or b.tied:
        return not places(a) & places(b)
    return a.nodes != b.nodes


def where_words(answer: Answer, *, limit: int | None = None) -> str:
    """ "node-5"; a tie: "node-3 or node-4 (tied; kube-scheduler picks one at random)"."""
    if answer.tied:
        return f"{join_names(answer.tied, conjunction='or', limit=limit)} ({TIED})"
    return join_names(answer.nodes, limit=limit) if answer.nodes else "no node"


def _nodes(answer: Answer) -> str:
    return where_words(answer, limit=NAMES_IN_A_SENTENCE)


def _doing(answer: Answer, *, both: bool = False, where: bool = True) -> str:
    """What an answer does, after "A" or "Both" ("preempts 1 pod on node-5"); without
    ``where``, not on which nodes."""

    def verb(one: str, many: str) -> str:
        return many if both else one

    on = f" on {_nodes(answer)}" if where else ""
    if answer.kind == WORKLOAD:
        if answer.placed == answer.asked:
            running = (
                verb("its replica", "their replica")
                if answer.asked == 1
                else f"all {answer.asked:,} replicas"
            )
        else:
            running = f"{answer.placed:,} of {plural(answer.asked, 'replica')}"
        on = on if answer.nodes else ""
        if answer.victims:
            return f"{verb('runs', 'run')} {running}{on}, preempting {plural(len(answer.victims), 'pod')}"
        return f"{verb('runs', 'run')} {running}{on} without preempting"
    if answer.outcome == FITS:
        return f"{verb('fits', 'fit')}{on}"
    if answer.outcome == PREEMPTS:
        whom = _names(answer.victims) if both else plural(len(answer.victims), "pod")
        return f"{verb('preempts', 'preempt')} {whom}{on}"
    return verb("is unschedulable", "are unschedulable")


def _budgets(a: Answer, b: Answer) -> str:
    if a.pdbs == b.pdbs:
        return ""
    return f"; PDBs broken: {_names(a.pdbs) or 'none'} in A, {_names(b.pdbs) or 'none'} in B"


def _count(count: OwnerCount | None) -> str:
    if count is None:
        return "untouched"
    if count.running is None:
        return f"{count.change:+,}"
    return f"{count.running:,} running"


def _owners(c: Comparison) -> str:
    """The first owner that ends differently, and how many more do."""
    changed = [r for r in c.owners if r.a != r.b]
    if not changed:
        return ""
    first = changed[0]
    more = f" ({plural(len(changed) - 1, 'more owner')} differ)" if len(changed) > 1 else ""
    return f"; the owners end differently: {first.owner} {_count(first.a)} in A, {_count(first.b)} in B{more}"


def _cascade(a: Answer, b: Answer) -> str:
    """Recreating the victims changed nothing that counts: say so, or "same" misleads."""
    for name, x in (("A", a), ("B", b)):
        if x.recreated and (a.recreated is None or b.recreated is None):
            return (
                f", though {name} recreates {plural(x.recreated, 'victim')} "
                f"({x.recreated_running or 0:,} of them running again)"
            )
    return ""


def _sentence(c: Comparison) -> str:
    """One sentence, the biggest difference first: the outcome, then the victims (with the
    nodes), then the nodes alone, the budgets, and last the owners' replicas."""
    a, b = c.a, c.b
    if c.same:
        return f"Both {_doing(a, both=True)}: same answer{_cascade(a, b)}."
    budgets = _budgets(a, b)
    if a.outcome != b.outcome or a.kind != b.kind or (a.placed, a.asked) != (b.placed, b.asked):
        return f"A {_doing(a)}; B {_doing(b)}{budgets}."
    where = f", on {_nodes(b)} instead of {_nodes(a)}" if moved(a, b) else ""
    added, removed = c.victims_added, c.victims_removed
    more = len(b.victims) - len(a.victims)
    if more > 0:
        text = f"B preempts {plural(more, 'more pod')} than A: {_names(added)}"
        text += f" instead of {_names(removed)}" if removed else ""
        return f"{text}{where}{budgets}."
    if more < 0:
        text = f"B preempts {plural(-more, 'fewer pod')} than A: it spares {_names(removed)}"
        text += f" but takes {_names(added)}" if added else ""
        return f"{text}{where}{budgets}."
    if added:
        text = f"B preempts other pods than A: {_names(added)} instead of {_names(removed)}"
        return f"{text}{where}{budgets}."
    if where:
        return (
            f"Both {_doing(a, both=True, where=False)}, "
            f"A on {_nodes(a)} and B on {_nodes(b)}{budgets}."
        )
    if places(a) != places(b):
        common = sorted(places(a) & places(b))
        return (
            f"Both {_doing(a, both=True, where=False)}, "
            f"A on {_nodes(a)} and B on {_nodes(b)}: both may land on "
            f"{join_names(common, conjunction='or', limit=NAMES_IN_A_SENTENCE)}{budgets}."
        )
    if budgets or a.pdb_violations != b.pdb_violations:
        return (
            f"Both {_doing(a, both=True)}, but the budgets differ: "
            f"{plural(a.pdb_violations, 'PDB violation')} in A, {b.pdb_violations:,} in B{budgets}."
        )
    return f"Both {_doing(a, both=True)}{_owners(c)}."


def compare(a: Answer, b: Answer) -> Comparison:
    """A against B: what B answers differently, the sentence first."""
    va, vb = set(a.victims), set(b.victims)
    owners = tuple(
        OwnerRow(owner=o, a=a.owners.get(o), b=b.owners.get(o))
        for o in sorted(set(a.owners) | set(b.owners))
    )
    same = (
        a.outcome == b.outcome
        and places(a) == places(b)
        and a.victims == b.victims
        and a.pdbs == b.pdbs
        and a.pdb_violations == b.pdb_violations
        and (a.placed, a.asked) == (b.placed, b.asked)
        and all(r.a == r.b for r in owners)
    )
    draft = Comparison(
        sentence="",
        same=same,
        a=a,
        b=b,
        victims_added=tuple(sorted(vb - va)),
        victims_removed=tuple(sorted(va - vb)),
        victims_kept=tuple(sorted(va & vb)),
        pdbs_added=tuple(sorted(set(b.pdbs) - set(a.pdbs))),
        pdbs_removed=tuple(sorted(set(a.pdbs) - set(b.pdbs))),
        owners=owners,
    )
    return replace(draft, sentence=_sentence(draft))
