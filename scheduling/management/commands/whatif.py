"""manage.py whatif SNAPSHOT POD: what kube-scheduler would do with POD on SNAPSHOT."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scheduling.engine import InvalidInput, Result, analyze, load_cluster, read_documents


def _read(path: str) -> list[dict[str, Any]]:
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise CommandError(f"{path}: {e.strerror}") from None
    return read_documents(data, Path(path).name)


def render_text(result: Result) -> str:
    r = result.to_dict()
    lines: list[str] = []
    who = (
        f"{r['pod']} (priority {r['priority']}"
        + (f", class {r['priority_class']}" if r["priority_class"] else "")
        + ")"
    )
    if r["outcome"] == "fits":
        lines.append(f"{who} fits: it would be bound to {r['node']} ({result.host_selection}).")
        lines.append(f"Feasible nodes: {len(r['feasible_nodes'])} of {result.num_nodes}.")
        if result.top_scored_nodes:
            lines.append(
                f"Top score {result.totals[result.top_scored_nodes[0]]}: {', '.join(result.top_scored_nodes)}"
            )
    elif r["outcome"] == "preempts":
        lines.append(
            f"{who} preempts on {r['node']}: {len(r['victims'])} victim(s), {r['pdb_violations']} PDB violation(s)."
        )
        for v in r["victims"]:
            lines.append(f"  victim {v}")
    else:
        lines.append(f"{who} is unschedulable; preemption does not help.")
        if not r["eligible"]:
            lines.append(f"  {r['ineligible_reason']}")
    if r["candidates"]:
        lines.append("")
        lines.append("Candidates (best first):")
        lines.append(
            f"  {'node':30} {'pdb':>4} {'highest':>11} {'sum':>12} {'victims':>7}  {'earliest start':20}  eliminated by"
        )
        for c in r["candidates"]:
            lines.append(
                f"  {c['node']:30} {c['pdb_violations']:>4} {c['highest_victim_priority']:>11} {c['priority_sum']:>12} "
                f"{c['victim_count']:>7}  {c['highest_victims_earliest_start'] or '-':20}  {c['eliminated_by'] or 'chosen'}"
            )
    if len(r["tied_nodes"]) > 1:
        lines.append(f"Tied after every criterion: {', '.join(r['tied_nodes'])}")
    if r["rejected_nodes"]:
        groups: dict[str, list[str]] = defaultdict(list)
        for n in r["rejected_nodes"]:
            groups[", ".join(n["reasons"]) or "-"].append(n["node"])
        lines.append("")
        lines.append("Rejected nodes:")
        for reason, nodes in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            shown = ", ".join(nodes[:5]) + (f" and {len(nodes) - 5} more" if len(nodes) > 5 else "")
            lines.append(f"  {len(nodes)} x {reason}: {shown}")
    if r["message"]:
        lines.append("")
        lines.append(f"Event: {r['message']}")
    for w in result.warnings:
        lines.append(f"Warning: {w}")
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Where would kube-scheduler put POD on SNAPSHOT, and whom would it preempt?"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "snapshot", help="kubectl get nodes,pods,pdb,priorityclasses -A -o json|yaml"
        )
        parser.add_argument("pod", help="the pending Pod manifest (JSON or YAML)")
        parser.add_argument("--format", choices=("text", "json"), default="text")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            cluster = load_cluster(
                _read(options["snapshot"]), source=Path(options["snapshot"]).name
            )
            pods = [d for d in _read(options["pod"]) if d.get("kind") in ("Pod", None)]
            if len(pods) != 1:
                raise CommandError(f"{options['pod']}: expected exactly one Pod, found {len(pods)}")
            result = analyze(cluster, pods[0])
        except InvalidInput as e:
            raise CommandError(str(e)) from None
        if options["format"] == "json":
            self.stdout.write(json.dumps(result.to_dict(), indent=2))
        else:
            self.stdout.write(render_text(result))
