"""manage.py drain SNAPSHOT_FILE... (--nodes a,b | --selector k=v | --zone Z) | --snapshot
NAME|ID ...: what happens when those nodes are drained (or lost), with gates that fail a
CI job (exit status 1, one line of reason) as whatif's do."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scheduling.engine import Cluster, InvalidInput
from scheduling.engine.take_nodes_away import TakeNodesAway, take_nodes_away
from scheduling.management.inputs import (
    add_scheduler_arguments,
    add_stored_snapshot_arguments,
    files_cluster,
    not_a_snapshot,
    scheduler_choice,
    stored_snapshot_cluster,
)
from scheduling.presenters.take_nodes_away import NodesAway
from scheduling.reports import gates
from scheduling.reports import take_nodes_away as reports
from scheduling.reports.escaping import plain
from scheduling.scheduler_config.report import profile_lines
from scheduling.services import engine_profile


class GateFailed(CommandError):
    """A gate tripped: manage.py prints "GateFailed: <reason>" and exits with GATE_FAILED."""


class Command(BaseCommand):
    help = (
        "What happens when nodes are drained (kubectl drain) or lost: where every evicted "
        "pod returns, whom it preempts, which PodDisruptionBudget blocks. On snapshot files "
        "(drain SNAPSHOT_FILE... --nodes a,b) or a stored snapshot (--snapshot NAME|ID). "
        f"Exit status: 0, or {gates.GATE_FAILED} when a --fail-on/--protect gate trips, "
        f"{gates.BAD_INPUT} when the input cannot be read."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "inputs", nargs="*", metavar="FILE", help="the snapshot's files (none with --snapshot)"
        )
        add_stored_snapshot_arguments(parser)
        parser.add_argument("--nodes", metavar="A,B", help="the nodes taken away, by name")
        parser.add_argument("--selector", metavar="K=V,...", help="the nodes whose labels match")
        parser.add_argument("--zone", help="every node of this topology.kubernetes.io/zone")
        parser.add_argument(
            "--how",
            default="drain",
            help="drain (default: as kubectl drain) or lost (the nodes fail)",
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="delete pods no controller recreates (without it the drain stops there)",
        )
        parser.add_argument(
            "--max-unavailable",
            type=int,
            metavar="N",
            help="nodes drained at once (default 1: one after another)",
        )
        parser.add_argument(
            "--add-nodes", type=int, metavar="N", help="N new nodes ready before the drain"
        )
        parser.add_argument("--like", metavar="NODE", help="the node the added ones copy")
        parser.add_argument("--format", choices=("text", "json", "markdown"), default="text")
        add_scheduler_arguments(parser)
        parser.add_argument(
            "--fail-on-preempt", action="store_true", help="fail when a returning pod preempts"
        )
        parser.add_argument(
            "--protect", metavar="CLASS,...", help="fail when a victim has one of these classes"
        )
        parser.add_argument(
            "--fail-on-pending",
            action="store_true",
            help="fail when a returning pod stays pending",
        )
        parser.add_argument(
            "--fail-on-blocked",
            action="store_true",
            help="fail when the drain does not complete (a PDB refuses an eviction, or a pod "
            "without a controller stops it)",
        )
        parser.add_argument(
            "--fail-on-pdb-violation",
            action="store_true",
            help="fail when a preemption takes a PDB past its budget",
        )

    def _request(self, options: dict[str, Any]) -> TakeNodesAway:
        """The engine's request from the flags (its refusals name the flag)."""
        body: dict[str, Any] = {"how": options["how"], "force": options["force"]}
        if options["nodes"]:
            body["nodes"] = [n.strip() for n in options["nodes"].split(",") if n.strip()]
        if options["selector"]:
            body["selector"] = options["selector"]
        if options["zone"]:
            body["zone"] = options["zone"]
        if options["max_unavailable"] is not None:
            body["max_unavailable"] = options["max_unavailable"]
        if options["add_nodes"] is not None or options["like"]:
            if options["add_nodes"] is None or not options["like"]:
                raise CommandError(
                    "--add-nodes N and --like NODE go together", returncode=gates.BAD_INPUT
                )
            body["add_nodes"] = {"count": options["add_nodes"], "like": options["like"]}
        try:
            return TakeNodesAway.from_dict(body)
        except InvalidInput as e:
            flag = "--" + (e.field or "").split(".")[0].split("[")[0].replace("_", "-")
            flag = {"--add-nodes": "--add-nodes/--like", "--": ""}.get(flag, flag)
            raise CommandError(
                plain(f"{flag}: {e.message}" if flag else e.message), returncode=gates.BAD_INPUT
            ) from None

    def _cluster(self, options: dict[str, Any]) -> tuple[Cluster, str]:
        inputs: list[str] = options["inputs"]
        if options["snapshot"]:
            if inputs:
                raise CommandError("With --snapshot give no files.", returncode=gates.BAD_INPUT)
            return stored_snapshot_cluster(options)
        if not inputs:
            raise CommandError(
                "Give the snapshot's files, or --snapshot NAME|ID.", returncode=gates.BAD_INPUT
            )
        cluster, name = files_cluster(inputs)
        if not cluster.nodes:
            raise CommandError(plain(not_a_snapshot(inputs)), returncode=gates.BAD_INPUT)
        return cluster, name

    def _gates(self, options: dict[str, Any], cluster: Cluster) -> list[reports.NodesAwayGate]:
        chosen = []
        if options["fail_on_preempt"]:
            chosen.append(reports.fail_on_preempt())
        if options["protect"] is not None:
            classes = [c.strip() for c in options["protect"].split(",") if c.strip()]
            if not classes:
                raise CommandError(
                    "--protect needs class names, e.g. --protect system-cluster-critical,cat-1",
                    returncode=gates.BAD_INPUT,
                )
            known = cluster.resolver.by_name
            unknown = [c for c in classes if c not in known]
            if unknown:
                raise CommandError(
                    plain(
                        f"--protect: no PriorityClass named {', '.join(repr(c) for c in unknown)} "
                        f"in the snapshot (it has: {', '.join(sorted(known)) or 'none'}); a gate "
                        "on a class nobody has could never fail."
                    ),
                    returncode=gates.BAD_INPUT,
                )
            chosen.append(
                reports.protect(classes, {p.key: p.priority_class_name for p in cluster.pods})
            )
        if options["fail_on_pending"]:
            chosen.append(reports.fail_on_pending())
        if options["fail_on_blocked"]:
            chosen.append(reports.fail_on_blocked())
        if options["fail_on_pdb_violation"]:
            chosen.append(reports.fail_on_pdb_violation())
        return chosen

    def handle(self, *args: Any, **options: Any) -> None:
        request = self._request(options)
        scheduler = scheduler_choice(options)
        try:
            cluster, snapshot_name = self._cluster(options)
            chosen = self._gates(options, cluster)
            answer = take_nodes_away(cluster, request, **engine_profile(scheduler.effective))
        except InvalidInput as e:
            raise CommandError(plain(e), returncode=gates.BAD_INPUT) from None
        body = answer.to_dict()
        typed = NodesAway.from_dict(body)
        failed = reports.failures(chosen, typed)
        if options["format"] == "json":
            if not scheduler.is_default:
                body["scheduler_profile"] = scheduler.profile()
            self.stdout.write(json.dumps(body, indent=2))
        else:
            lines = profile_lines(scheduler, "", markdown=options["format"] == "markdown")
            if lines:
                self.stdout.write("\n".join(lines) + "\n\n", ending="")
            if options["format"] == "markdown":
                self.stdout.write(
                    reports.render_markdown(typed, snapshot=snapshot_name, gate_failures=failed),
                    ending="",
                )
            else:
                self.stdout.write(reports.render_text(typed), ending="")
        if failed:
            raise GateFailed(plain("; ".join(failed)), returncode=gates.GATE_FAILED)
