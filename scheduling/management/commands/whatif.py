"""manage.py whatif SNAPSHOT_FILE... POD | --snapshot NAME|ID POD: what kube-scheduler
would do with POD, with gates that fail a CI job (exit status 1, one line of reason)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from scheduling.analyses import submission
from scheduling.analyses.workloads import WorkloadRun
from scheduling.engine import (
    Cluster,
    EngineConfig,
    InvalidInput,
    analyze,
    simulate,
)
from scheduling.engine.advice import Advice, PodQuestion, Question, WorkloadQuestion, advise
from scheduling.engine.budgets import manifest_record, with_budgets
from scheduling.engine.capacity import MAX_LIMIT, capacity
from scheduling.engine.hypothetical import (
    priority_class_object,
    split_priority_classes,
    with_priority_classes,
)
from scheduling.engine.profile import DEFAULT_SCHEDULER_NAME
from scheduling.engine.workload import TooManyReplicas, admit, expand_workload
from scheduling.management.inputs import (
    add_scheduler_arguments,
    add_stored_snapshot_arguments,
    files_cluster,
    not_a_snapshot,
    read_input,
    scheduler_choice,
    stored_snapshot_cluster,
    whatif_objects,
)
from scheduling.reports import gates
from scheduling.reports.advice import render_advice_markdown, render_advice_text
from scheduling.reports.escaping import plain
from scheduling.reports.manifest import manifest_lines
from scheduling.reports.markdown import render_markdown, render_workload_markdown
from scheduling.reports.text import render_capacity_text, render_text, render_workload_text
from scheduling.scheduler_config import SchedulerChoice
from scheduling.scheduler_config.difference import difference_sentence
from scheduling.scheduler_config.report import profile_lines
from scheduling.services import engine_profile


class GateFailed(CommandError):
    """A gate tripped: manage.py prints "GateFailed: <reason>" and exits with GATE_FAILED."""


class Command(BaseCommand):
    help = (
        "Where would kube-scheduler put POD, and whom would it preempt? On snapshot files "
        "(whatif SNAPSHOT_FILE... POD) or a stored snapshot (whatif --snapshot NAME|ID POD). "
        f"Exit status: 0, or {gates.GATE_FAILED} when a --fail-on/--protect gate trips "
        f"(its reason on one line of stderr), {gates.BAD_INPUT} when the input cannot be read."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "inputs",
            nargs="+",
            metavar="FILE",
            help="the snapshot's files (kubectl get nodes,pods,pdb,priorityclasses -A -o json|yaml), "
            "then the pending Pod manifest; only the Pod with --snapshot",
        )
        add_stored_snapshot_arguments(parser)
        parser.add_argument("--format", choices=("text", "json", "markdown"), default="text")
        parser.add_argument(
            "--recreate-victims",
            action="store_true",
            help="workloads: victims owned by a controller come back as new pending pods "
            "(the cascade); the report then says what each owner really lost",
        )
        parser.add_argument(
            "--min-candidate-nodes-percentage",
            type=int,
            metavar="P",
            help="DefaultPreemptionArgs.minCandidateNodesPercentage of the cluster's scheduler "
            "(default 10)",
        )
        parser.add_argument(
            "--min-candidate-nodes-absolute",
            type=int,
            metavar="N",
            help="DefaultPreemptionArgs.minCandidateNodesAbsolute (default 100)",
        )
        parser.add_argument(
            "--preemption-offset",
            type=int,
            metavar="N",
            help="answer as kube-scheduler's dry run from this random offset (an index into "
            "the potential nodes in the snapshot's node order), to reproduce a real event",
        )
        parser.add_argument(
            "--timeline",
            action="store_true",
            help="workloads: keep time: victims take their grace period to go, pods arrive "
            "at their preemptlab.io/arrival-seconds; the report says when each pod runs",
        )
        parser.add_argument(
            "--priority-class",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="a PriorityClass for this what-if only (repeatable): a new class, or a new "
            "value for the snapshot's class of that name; PriorityClass documents in the Pod "
            "or workload file are taken the same way",
        )
        parser.add_argument(
            "--capacity",
            type=int,
            metavar="N",
            help=f"how many replicas of the Pod fit, trying up to N (1 to {MAX_LIMIT}): as "
            "the cluster stands, by preempting, and what each costs (the gates, "
            "--recreate-victims and --timeline do not apply)",
        )
        add_scheduler_arguments(parser)
        parser.add_argument(
            "--advise",
            action="store_true",
            help="after the answer, the smallest single changes that avoid its evictions "
            "(a smaller request, nodes to add, fewer replicas, a class that waits, a "
            "budget, a softer constraint), each proven by running the engine again; json "
            'puts them under "advice"',
        )
        parser.add_argument(
            "--fail-on-preempt", action="store_true", help="fail when the pod would preempt any pod"
        )
        parser.add_argument(
            "--fail-on-victim-priority-above",
            type=int,
            metavar="N",
            help="fail when a victim's priority is above N",
        )
        parser.add_argument(
            "--fail-on-pdb-violation",
            action="store_true",
            help="fail when the preemption would break a PodDisruptionBudget",
        )
        parser.add_argument(
            "--protect",
            metavar="CLASS,...",
            help="fail when a victim belongs to one of these PriorityClasses",
        )
        parser.add_argument(
            "--fail-on-pending",
            action="store_true",
            help="fail when the pod, or any replica of the workload, is not running at the end",
        )
        parser.add_argument(
            "--fail-on-unschedulable",
            action="store_true",
            help="fail when a pod cannot be scheduled, not even by preempting",
        )

    def _gates(self, options: dict[str, Any]) -> list[gates.Gate]:
        chosen: list[gates.Gate] = []
        if options["fail_on_preempt"]:
            chosen.append(gates.fail_on_preempt())
        if options["fail_on_victim_priority_above"] is not None:
            chosen.append(
                gates.fail_on_victim_priority_above(options["fail_on_victim_priority_above"])
            )
        if options["fail_on_pdb_violation"]:
            chosen.append(gates.fail_on_pdb_violation())
        if options["protect"] is not None:
            classes = [c.strip() for c in options["protect"].split(",") if c.strip()]
            if not classes:
                raise CommandError(
                    "--protect needs class names, e.g. --protect system-cluster-critical,cat-1",
                    returncode=gates.BAD_INPUT,
                )
            chosen.append(gates.protect(classes))
        if options["fail_on_pending"]:
            chosen.append(gates.fail_on_pending())
        if options["fail_on_unschedulable"]:
            chosen.append(gates.fail_on_unschedulable())
        return chosen

    def _cluster(self, options: dict[str, Any]) -> tuple[Cluster, str, str]:
        """The cluster to ask, a name for it (Markdown, escaped here), and the Pod file's path."""
        inputs: list[str] = options["inputs"]
        if options["snapshot"]:
            if len(inputs) != 1:
                raise CommandError(
                    f"With --snapshot give only the Pod file, not {len(inputs)} files.",
                    returncode=gates.BAD_INPUT,
                )
            cluster, name = stored_snapshot_cluster(options)
            if not cluster.nodes:
                raise CommandError(
                    plain(
                        f"Snapshot {options['snapshot']} has no nodes to run the pod on; "
                        "upload one taken with kubectl get nodes,pods,pdb,priorityclasses -A."
                    ),
                    returncode=gates.BAD_INPUT,
                )
            return cluster, name, inputs[0]
        if len(inputs) < 2:
            raise CommandError(
                "Give the snapshot's files and then the Pod file, or --snapshot NAME|ID and the Pod file.",
                returncode=gates.BAD_INPUT,
            )
        cluster, name = files_cluster(inputs[:-1])
        if not cluster.nodes:
            raise CommandError(plain(not_a_snapshot(inputs[:-1])), returncode=gates.BAD_INPUT)
        return cluster, name, inputs[-1]

    def _workload(
        self,
        cluster: Cluster,
        objects: list[Any],
        options: dict[str, Any],
        chosen: list[gates.Gate],
        snapshot_name: str,
        scheduler: SchedulerChoice,
    ) -> None:
        """A Deployment, ReplicaSet, StatefulSet, Job, List or several documents: the
        workload contract (json), the short report (text) or a PR comment (markdown);
        the gates judge the whole run."""
        limit = int(settings.PREEMPTLAB_WORKLOAD_MAX_REPLICAS)
        try:
            workload = expand_workload(objects, max_replicas=limit, nodes=cluster.node_infos)
        except TooManyReplicas as e:
            raise CommandError(
                f"{e}; raise the limit with the PREEMPTLAB_WORKLOAD_MAX_REPLICAS environment "
                "variable.",
                returncode=gates.BAD_INPUT,
            ) from None
        admit(workload, cluster.resolver)
        # The manifest's budgets join the snapshot for this run (a same-named one replaced).
        cluster, budgets = with_budgets(cluster, workload.budgets)
        manifest = manifest_record(budgets, workload.skipped)

        def run_under(config: dict[str, Any] | None) -> tuple[Any, WorkloadRun]:
            sim = simulate(
                cluster,
                workload.pods,
                recreate_victims=options["recreate_victims"],
                timeline=options["timeline"],
                **engine_profile(config),
            )
            return sim, WorkloadRun.from_simulation(sim, workload)

        sim, run = run_under(scheduler.effective)
        difference = (
            "" if scheduler.is_default else difference_sentence(scheduler, run, run_under(None)[1])
        )
        self._profile(options, scheduler, difference)
        failed = gates.failures_of_run(chosen, run)
        advice = self._advice(
            options,
            cluster,
            WorkloadQuestion(
                objects,
                recreate_victims=options["recreate_victims"],
                timeline=options["timeline"],
                max_replicas=limit,
            ),
            scheduler,
        )
        if options["format"] == "json":
            # The workload's outcome, then the contract with the profile as chosen here.
            body = {
                "outcome": run.outcome.value,
                **sim.to_dict(),
                "verdict": gates.verdict_of_run(run).to_dict(),
            }
            if manifest is not None:
                body["manifest"] = manifest
            self.stdout.write(
                json.dumps(self._with_advice(self._contract(body, scheduler), advice), indent=2)
            )
        elif options["format"] == "markdown":
            self.stdout.write(
                render_workload_markdown(run, snapshot=snapshot_name, gate_failures=failed),
                ending="",
            )
        else:
            self.stdout.write(render_workload_text(run), ending="")
        if manifest is not None and options["format"] != "json":
            self.stdout.write("\n".join(manifest_lines(manifest)) + "\n", ending="")
        self._advice_report(options, advice, failed)
        if failed:
            raise GateFailed(plain("; ".join(failed)), returncode=gates.GATE_FAILED)

    def _capacity(
        self,
        cluster: Cluster,
        objects: list[Any],
        options: dict[str, Any],
        chosen: list[gates.Gate],
        scheduler: SchedulerChoice,
    ) -> None:
        """How many replicas of one Pod fit: the answer's JSON, or the page's sentence and
        the replicas as text."""
        if len(objects) != 1 or objects[0].get("kind") not in ("Pod", None):
            raise InvalidInput("--capacity takes one Pod: its replicas are tried as a ReplicaSet's")
        unused = [
            flag
            for flag, on in (
                ("a --fail-on/--protect gate", bool(chosen)),
                ("--recreate-victims", options["recreate_victims"]),
                ("--timeline", options["timeline"]),
                ("--format markdown (text or json)", options["format"] == "markdown"),
                ("--advise", options["advise"]),
            )
            if on
        ]
        if unused:
            raise InvalidInput(f"--capacity does not take {unused[0]}")
        answer = capacity(
            cluster, objects[0], limit=options["capacity"], **engine_profile(scheduler.effective)
        )
        if options["format"] == "json":
            self.stdout.write(json.dumps(self._contract(answer.to_dict(), scheduler), indent=2))
        else:
            self._profile(options, scheduler, "")
            self.stdout.write(render_capacity_text(answer), ending="")

    @staticmethod
    def _advice(
        options: dict[str, Any], cluster: Cluster, question: Question, scheduler: SchedulerChoice
    ) -> Advice | None:
        """With --advise, the advice for the question (the cluster already holds the
        what-if's own classes); None without."""
        if not options["advise"]:
            return None
        return advise(cluster, question, scheduler_config=scheduler.effective)

    @staticmethod
    def _with_advice(body: dict[str, Any], advice: Advice | None) -> dict[str, Any]:
        """The JSON answer, with the advice contract's list under "advice"."""
        if advice is not None:
            body["advice"] = advice.as_contract()["advice"]
        return body

    def _advice_report(
        self, options: dict[str, Any], advice: Advice | None, failed: list[str]
    ) -> None:
        """The advice after a text or Markdown report."""
        if advice is None or options["format"] == "json":
            return
        if options["format"] == "markdown":
            self.stdout.write(render_advice_markdown(advice, gate_failed=bool(failed)), ending="")
        else:
            self.stdout.write("\n" + render_advice_text(advice), ending="")

    def _config(self, options: dict[str, Any]) -> EngineConfig:
        """The preemption arguments given on the command line over the defaults."""
        config = EngineConfig()
        for name in (
            "min_candidate_nodes_percentage",
            "min_candidate_nodes_absolute",
            "preemption_offset",
        ):
            if options.get(name) is not None:
                if options[name] < 0:
                    raise CommandError(
                        f"--{name.replace('_', '-')} must be 0 or more",
                        returncode=gates.BAD_INPUT,
                    )
                setattr(config, name, options[name])
        if config.min_candidate_nodes_percentage == 0 == config.min_candidate_nodes_absolute:
            raise CommandError(
                "--min-candidate-nodes-percentage and --min-candidate-nodes-absolute cannot "
                "both be 0 (kube-scheduler refuses that configuration)",
                returncode=gates.BAD_INPUT,
            )
        return config

    def _profile(
        self, options: dict[str, Any], scheduler: SchedulerChoice, difference: str
    ) -> None:
        """The profile's lines before a text or Markdown report (none for the default)."""
        if options["format"] == "json":
            return
        lines = profile_lines(scheduler, difference, markdown=options["format"] == "markdown")
        if lines:
            self.stdout.write("\n".join(lines) + "\n\n", ending="")

    @staticmethod
    def _contract(body: dict[str, Any], scheduler: SchedulerChoice) -> dict[str, Any]:
        """The contract with the profile as this command chose it (the engine cannot know
        a configuration came from the snapshot or a preset)."""
        if not scheduler.is_default or "scheduler_profile" in body:
            body["scheduler_profile"] = scheduler.profile()
        return body

    def _check_protected(self, options: dict[str, Any], cluster: Cluster) -> None:
        """A --protect class the snapshot lacks is a typo: a gate that could never fail."""
        if options["protect"] is None:
            return
        known = cluster.resolver.by_name
        unknown = [c.strip() for c in options["protect"].split(",") if c.strip() not in known]
        unknown = [c for c in unknown if c]
        if unknown:
            listed = ", ".join(sorted(known)) or "none"
            raise CommandError(
                plain(
                    f"--protect: no PriorityClass named {', '.join(repr(c) for c in unknown)} "
                    f"in the snapshot (it has: {listed}); a gate on a class nobody has "
                    "could never fail."
                ),
                returncode=gates.BAD_INPUT,
            )

    def _classes(self, options: dict[str, Any]) -> list[dict[str, Any]]:
        """--priority-class NAME=VALUE as PriorityClass objects."""
        out = []
        for given in options["priority_class"]:
            name, sep, value = given.partition("=")
            try:
                number = int(value.strip())
            except ValueError:
                number = None
            if not sep or not name.strip() or number is None:
                raise CommandError(
                    f"--priority-class {given!r}: write NAME=VALUE, e.g. cat-3=30000",
                    returncode=gates.BAD_INPUT,
                )
            out.append(priority_class_object(name.strip(), number))
        return out

    def _pod_file(self, path: str) -> list[dict[str, Any]]:
        """The what-if's documents, held to the limits every what-if is held to: the
        file's size before it is read, then each object's annotations."""
        try:
            submission.submission_size_check(
                Path(path).stat().st_size, field="manifest", what=Path(path).name
            )
            objects = read_input(path)
            submission.annotations_check(objects, field="manifest")
        except OSError as e:
            raise CommandError(f"{path}: {e.strerror}", returncode=gates.BAD_INPUT) from None
        except submission.PodRejected as e:
            raise CommandError(plain(e.message), returncode=gates.BAD_INPUT) from None
        return objects

    def handle(self, *args: Any, **options: Any) -> None:
        chosen = self._gates(options)
        given_classes = self._classes(options)
        scheduler = scheduler_choice(options)
        try:
            cluster, snapshot_name, pod_path = self._cluster(options)
            classes, objects = split_priority_classes(
                whatif_objects(self._pod_file(pod_path), pod_path)
            )
            # The what-if's own classes, in effect for everything below (admission, the
            # gates' class names, the run); the file's first, then the options'.
            cluster = with_priority_classes(cluster, classes + given_classes)
            self._check_protected(options, cluster)
            if options["capacity"] is not None:
                self._capacity(cluster, objects, options, chosen, scheduler)
                return
            if (
                len(objects) != 1
                or objects[0].get("kind") not in ("Pod", None)
                or options["recreate_victims"]
                or options["timeline"]
            ):
                self._workload(cluster, objects, options, chosen, snapshot_name, scheduler)
                return
            config = self._config(options)
            result = analyze(cluster, objects[0], config, **engine_profile(scheduler.effective))
            advice = self._advice(options, cluster, PodQuestion(objects[0], config), scheduler)
            difference = ""
            if not scheduler.is_default:
                default = analyze(cluster, objects[0], config)
                spec = objects[0].get("spec") or {}
                difference = difference_sentence(
                    scheduler,
                    result.explanation,
                    default.explanation,
                    scheduler_name=spec.get("schedulerName") or DEFAULT_SCHEDULER_NAME,
                )
        except InvalidInput as e:
            raise CommandError(plain(e), returncode=gates.BAD_INPUT) from None
        failed = gates.failures(chosen, result.explanation)
        self._profile(options, scheduler, difference)
        if options["format"] == "json":
            body = self._contract(result.to_dict(), scheduler)
            body["verdict"] = gates.verdict_of(result.explanation).to_dict()
            self.stdout.write(json.dumps(self._with_advice(body, advice), indent=2))
        elif options["format"] == "markdown":
            self.stdout.write(
                render_markdown(result.explanation, snapshot=snapshot_name, gate_failures=failed),
                ending="",
            )
        else:
            self.stdout.write(render_text(result.explanation))
        self._advice_report(options, advice, failed)
        if failed:
            # One line a CI log shows as the reason; the exit status fails the job.
            raise GateFailed(plain("; ".join(failed)), returncode=gates.GATE_FAILED)
