"""Taking nodes away on the command line: the text and Markdown reports of `drain`, and
its gates (a rollout's rules: no preemption, no victim of a protected class, no pod left
pending, a drain that completes). Each gate answers None when its rule holds, else the one
line a CI log shows; the exit statuses are the whatif command's (reports/gates.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from scheduling.engine.words import plural
from scheduling.presenters.take_nodes_away import NodesAway, advice_lines, counts_line
from scheduling.reports.escaping import md_code, md_text


def _names(keys: tuple[str, ...] | list[str], limit: int = 5) -> str:
    shown = ", ".join(keys[:limit])
    return shown + (f" and {len(keys) - limit} more" if len(keys) > limit else "")


@dataclass(frozen=True)
class NodesAwayGate:
    """One rule, named by its command-line flag, judged on the whole answer."""

    flag: str
    check: Callable[[NodesAway], str | None]

    def failure(self, answer: NodesAway) -> str | None:
        reason = self.check(answer)
        return None if reason is None else f"{self.flag}: {reason}"


def fail_on_preempt() -> NodesAwayGate:
    def check(a: NodesAway) -> str | None:
        if not a.victims:
            return None
        return f"the returning pods would preempt {plural(len(a.victims), 'pod')}: {_names(list(a.victims))}"

    return NodesAwayGate("--fail-on-preempt", check)


def protect(classes: list[str], class_of: Mapping[str, str | None]) -> NodesAwayGate:
    """``class_of``: each pod's PriorityClass in the snapshot (the answer names pods)."""
    protected = set(classes)

    def check(a: NodesAway) -> str | None:
        hit = []
        for p in a.preemptions:
            for v in p.victims:
                klass = p.victim_classes.get(v) or class_of.get(v)
                if klass in protected:
                    hit.append((v, klass))
        if not hit:
            return None
        names = sorted({k or "" for _, k in hit})
        return (
            f"the returning pods would preempt {plural(len(hit), 'pod')} of protected class "
            f"{', '.join(names)}: {_names([v for v, _ in hit])}"
        )

    return NodesAwayGate(f"--protect {','.join(classes)}", check)


def fail_on_pending() -> NodesAwayGate:
    def check(a: NodesAway) -> str | None:
        if not a.pending:
            return None
        return f"{plural(len(a.pending), 'returning pod')} stay pending: {_names(list(a.pending))}"

    return NodesAwayGate("--fail-on-pending", check)


def fail_on_blocked() -> NodesAwayGate:
    """The drain does not complete: an eviction a PodDisruptionBudget refuses, or a pod
    without a controller and no --force (kubectl drain stops there too)."""

    def check(a: NodesAway) -> str | None:
        if a.verdict == "completes":
            return None
        if a.blocked:
            first = a.blocked[0]
            return (
                f"the drain is blocked: {plural(len(a.blocked), 'eviction')} refused "
                f"(first {first.pod} by PDB {first.pdb})"
            )
        if a.stopped_at:
            return f"the drain stops at {a.stopped_at[0]} (no controller; --force deletes it)"
        return f"the drain does not complete ({a.verdict})"

    return NodesAwayGate("--fail-on-blocked", check)


def fail_on_pdb_violation() -> NodesAwayGate:
    def check(a: NodesAway) -> str | None:
        if not a.pdbs_exceeded:
            return None
        return "PodDisruptionBudgets taken past their budget: " + _names(list(a.pdbs_exceeded))

    return NodesAwayGate("--fail-on-pdb-violation", check)


def failures(gates: list[NodesAwayGate], answer: NodesAway) -> list[str]:
    return [reason for gate in gates if (reason := gate.failure(answer)) is not None]


# --- text ----------------------------------------------------------------------------------


def render_text(a: NodesAway) -> str:
    """The sentence first, then node by node, the returning pods, the preemptions."""
    out = [a.sentence, counts_line(a), ""]
    for n in a.nodes:
        out.append(f"{n.node}:")
        for label, pods in (("evicted", n.evicted), ("deleted", n.deleted), ("left", n.left)):
            if pods:
                out.append(f"  {label}: {', '.join(pods)}")
        for b in n.blocked:
            out.append(f"  blocked: {b.pod} by PDB {b.pdb}")
        if n.stopped_at:
            out.append(f"  stopped at: {n.stopped_at} (no controller; --force deletes it)")
    if a.returning:
        out += ["", "Returning pods:"]
        for r in a.returning:
            replaces = f" (replaces {r.replaces})" if r.replaces else ""
            if r.node:
                victims = a.victims_of(r)
                by = f", preempting {', '.join(victims)}" if victims else ""
                out.append(f"  {r.pod}{replaces} -> {r.node}{by}")
            else:
                out.append(f"  {r.pod}{replaces} stays pending: {r.reason or 'no node takes it'}")
    if a.preemptions:
        out += ["", "Preemptions:"]
        for p in a.preemptions:
            out.append(f"  {p.preemptor} on {p.node} preempts {', '.join(p.victims)}")
            for c in p.candidates:
                if c.eliminated_by:
                    out.append(f"    not {c.node}: out at {c.eliminated_by.label}")
            if p.tie_sentence:
                out.append(f"    {p.tie_sentence}")
    if a.pdbs_exceeded:
        out += ["", "PDBs exceeded: " + ", ".join(a.pdbs_exceeded)]
    advice = advice_lines(a)
    if advice:
        out += ["", "What would help:"] + [f"  - {line}" for line in advice]
    return "\n".join(out) + "\n"


# --- Markdown ------------------------------------------------------------------------------


def render_markdown(a: NodesAway, *, snapshot: str, gate_failures: list[str]) -> str:
    """A pull request's comment: the verdict, the tables, the gates that tripped."""
    out = [
        f"### {'Losing' if a.how == 'lost' else 'Draining'} nodes on {snapshot}",
        "",
        f"**{md_text(a.sentence)}**",
        "",
        md_text(counts_line(a)),
        "",
        "| Node | Evicted | Deleted | Left | Blocked | Stopped at |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for n in a.nodes:
        blocked = ", ".join(f"{md_code(b.pod)} by {md_code(b.pdb)}" for b in n.blocked) or "—"
        out.append(
            f"| {md_code(n.node)} | {len(n.evicted)} | {len(n.deleted)} | {len(n.left)} | "
            f"{blocked} | {md_code(n.stopped_at) if n.stopped_at else '—'} |"
        )
    if a.returning:
        out += [
            "",
            "| Returning pod | Replaces | Runs on | Preempts / why pending |",
            "| --- | --- | --- | --- |",
        ]
        for r in a.returning:
            if r.node:
                victims = ", ".join(md_code(v) for v in a.victims_of(r)) or "—"
                why = victims
            else:
                why = md_text(r.reason or "no node takes it")
            out.append(
                f"| {md_code(r.pod)} | {md_code(r.replaces) if r.replaces else '—'} | "
                f"{md_code(r.node) if r.node else 'pending'} | {why} |"
            )
    if a.pdbs_exceeded:
        out += ["", "PDBs exceeded: " + ", ".join(md_code(p) for p in a.pdbs_exceeded)]
    if gate_failures:
        out += ["", "**Gates failed:**"] + [f"- {md_text(f)}" for f in gate_failures]
    return "\n".join(out) + "\n"
