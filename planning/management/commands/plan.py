"""manage.py plan SNAPSHOT_FILE... | --snapshot NAME|ID: the PriorityClass ladder and the
audit, with an exit status a CI job can fail on (--fail-on)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from planning.plan import SEVERITIES, UnknownClasses, plan_of, with_first_in_line
from planning.reports import (
    finding_line,
    render_first_in_line_markdown,
    render_first_in_line_text,
    render_plan_markdown,
    render_plan_text,
)
from scheduling.engine import InvalidInput
from scheduling.engine.capacity import Size
from scheduling.engine.objects import CPU, MEMORY
from scheduling.engine.plan.first_in_line import DEFAULT_LIMIT, MAX_LIMIT, first_in_line
from scheduling.engine.quantity import resource_value
from scheduling.management.commands.whatif import GateFailed
from scheduling.management.inputs import (
    add_scheduler_arguments,
    add_stored_snapshot_arguments,
    files_cluster,
    scheduler_choice,
    stored_snapshot_cluster,
)
from scheduling.reports import gates
from scheduling.reports.escaping import plain

NEVER = "never"


class Command(BaseCommand):
    help = (
        "The priority plan of a snapshot: every PriorityClass and what uses it, and the audit "
        "of the planning rules (each finding with its rule id, why and a YAML fix). On "
        "snapshot files (plan SNAPSHOT_FILE...) or a stored snapshot (plan --snapshot NAME|ID). "
        f"Exit status: 0, or {gates.GATE_FAILED} when a finding is as serious as --fail-on "
        f"(default error), {gates.BAD_INPUT} when the input cannot be read."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "inputs",
            nargs="*",
            metavar="FILE",
            help="the snapshot's files (kubectl get nodes,pods,pdb,priorityclasses,"
            "resourcequotas -A -o json|yaml); none with --snapshot",
        )
        add_stored_snapshot_arguments(parser)
        add_scheduler_arguments(parser)
        parser.add_argument("--format", choices=("text", "json", "markdown"), default="text")
        parser.add_argument(
            "--critical",
            action="append",
            default=[],
            metavar="CLASS,...",
            help="classes whose apps should all have a PodDisruptionBudget (repeatable); "
            "unset, the highest user class that pods use",
        )
        parser.add_argument(
            "--first-in-line",
            action="store_true",
            help="add every app ranked by how soon preemption reaches it (one simulated run "
            "of probe pods per priority level)",
        )
        parser.add_argument(
            "--size",
            default="1,2Gi",
            metavar="CPU,MEMORY",
            help="the probe pod's requests for --first-in-line (default 1,2Gi)",
        )
        parser.add_argument(
            "--limit",
            type=int,
            default=DEFAULT_LIMIT,
            help=f"probes per priority level for --first-in-line, 1 to {MAX_LIMIT} "
            f"(default {DEFAULT_LIMIT})",
        )
        parser.add_argument(
            "--fail-on",
            choices=(*SEVERITIES, NEVER),
            default="error",
            help="exit 1 when a finding is this serious or more (default error)",
        )

    def _cluster(self, options: dict[str, Any]) -> tuple[Any, str]:
        inputs: list[str] = options["inputs"]
        if options["snapshot"]:
            if inputs:
                raise CommandError(
                    "Give --snapshot or the snapshot's files, not both.",
                    returncode=gates.BAD_INPUT,
                )
            return stored_snapshot_cluster(options)
        if not inputs:
            raise CommandError(
                "Give the snapshot's files, or --snapshot NAME|ID.", returncode=gates.BAD_INPUT
            )
        return files_cluster(inputs)

    def handle(self, *args: Any, **options: Any) -> None:
        critical = [
            c.strip() for given in options["critical"] for c in given.split(",") if c.strip()
        ]
        size = _size(options["size"]) if options["first_in_line"] else None
        scheduler = scheduler_choice(options).effective
        try:
            cluster, name = self._cluster(options)
            plan = plan_of(cluster, critical_classes=critical, scheduler_config=scheduler)
            line = (
                first_in_line(
                    cluster,
                    cpu_millis=size[0],
                    memory_bytes=size[1],
                    limit=options["limit"],
                    scheduler_config=scheduler,
                )
                if size
                else None
            )
        except InvalidInput as e:
            where = "--limit: " if e.field == "limit" else ""
            raise CommandError(where + plain(e), returncode=gates.BAD_INPUT) from None
        except UnknownClasses as e:
            raise CommandError(f"--critical: {plain(e)}", returncode=gates.BAD_INPUT) from None
        if options["format"] == "json":
            body = plan.to_dict()
            if line is not None:
                body = with_first_in_line(body, line)
            self.stdout.write(json.dumps(body, indent=2))
        elif options["format"] == "markdown":
            self.stdout.write(render_plan_markdown(plan, snapshot=name), ending="")
            if line is not None:
                self.stdout.write("\n" + render_first_in_line_markdown(line), ending="")
        else:
            self.stdout.write(render_plan_text(plan), ending="")
            if line is not None:
                self.stdout.write("\n" + render_first_in_line_text(line), ending="")
        if options["fail_on"] == NEVER:
            return
        failing = plan.at_or_above(options["fail_on"])
        if failing:
            more = f" (and {len(failing) - 1} more)" if len(failing) > 1 else ""
            raise GateFailed(finding_line(failing[0]) + more, returncode=gates.GATE_FAILED)


def _size(raw: str) -> tuple[int, int]:
    """--size CPU,MEMORY as milli-CPU and bytes."""
    cpu, sep, memory = raw.partition(",")
    if not sep:
        raise CommandError(
            f"--size: give CPU,MEMORY (as 1,2Gi), not {raw!r}", returncode=gates.BAD_INPUT
        )
    try:
        Size(cpu.strip(), memory.strip()).check()
    except InvalidInput as e:
        raise CommandError(f"--size: {plain(e)}", returncode=gates.BAD_INPUT) from None
    return resource_value(CPU, cpu.strip()), resource_value(MEMORY, memory.strip())
