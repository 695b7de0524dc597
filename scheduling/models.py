"""What-if analyses of a snapshot and the links that share them.

An Analysis belongs to its snapshot's owner. It keeps the pod as submitted and
the engine's explanation (``explanation``: the contract, every node's status,
the scores, the chosen node before and after, the victims' classes, requests and
PDBs) in one column with its schema version, so a shared page needs nothing else.
"""

from __future__ import annotations

import secrets
from functools import cached_property
from typing import Any

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from clusters import access
from clusters.ingest.scrub import scrub_report_lines
from operations.leases import LeasedWork
from scheduling.analyses.explanations import explanation_load
from scheduling.analyses.workloads import WorkloadRun
from scheduling.constants import (
    ACTIVE_STATUSES,
    ANALYSIS_OUTCOMES,
    AnalysisKind,
    AnalysisSource,
    AnalysisStatus,
)
from scheduling.engine import Explanation
from scheduling.engine.capacity import Capacity, RoomByClass
from scheduling.reports.gates import verdict_of, verdict_of_run
from scheduling.scheduler_config import SchedulerChoice, SchedulerSource


class AnalysisQuerySet(models.QuerySet["Analysis"]):
    def visible_to(self, user: Any) -> AnalysisQuerySet:
        # Staff included: everyone sees those of their own and their teams' snapshots
        # (clusters/access.py); the admin site shows everything.
        if not getattr(user, "is_authenticated", False):
            return self.none()
        return self.filter(access.visible_to(user, prefix="snapshot__"))

    def without_payload(self) -> AnalysisQuerySet:
        """For lists: leave the large JSON columns in the database."""
        return self.defer(*Analysis.PAYLOAD_FIELDS)


class Analysis(LeasedWork):
    # The large JSON columns: lists and cache lookups leave them in the database.
    PAYLOAD_FIELDS = ("pod", "explanation", "simulation", "priority_classes", "scheduler_config")

    snapshot = models.ForeignKey(
        "clusters.Snapshot", on_delete=models.CASCADE, related_name="analyses"
    )
    # "namespace/name" of the submitted pod, for lists and titles.
    pod_key = models.CharField(max_length=507)
    pod = models.JSONField()
    source = models.CharField(
        max_length=16, choices=AnalysisSource.choices, default=AnalysisSource.MANIFEST
    )
    status = models.CharField(
        max_length=16, choices=AnalysisStatus.choices, default=AnalysisStatus.QUEUED
    )
    error = models.TextField(blank=True, default="")
    # Copied from the answer for lists and filters: a pod's (or a capacity what-if's)
    # fits/preempts/unschedulable, a workload's all-run/some-run/none-run.
    outcome = models.CharField(max_length=16, choices=ANALYSIS_OUTCOMES, blank=True, default="")
    created = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # How many times a worker started it (more than one after a worker died mid-run).
    attempts = models.PositiveSmallIntegerField(default=0)
    # Seconds spent loading the cluster (0 when the worker had it cached) and analyzing.
    load_seconds = models.FloatField(null=True, blank=True)
    engine_seconds = models.FloatField(null=True, blank=True)
    engine_version = models.CharField(max_length=64, blank=True, default="")
    # Explanation.to_json() (schema_version 2), or the three columns of an analysis
    # stored before it, moved here as they were (see scheduling.analyses.explanations).
    explanation = models.JSONField(null=True, blank=True)
    # A capacity what-if (how many replicas of a pod fit): ``pod`` holds {"objects": [the
    # template Pod], "limit": N}, or for every user class at once {"objects": [], "size":
    # {"cpu", "memory"}, "limit": N}; ``simulation`` the answer (capacity_to_json).
    # A workload what-if: ``pod`` then holds {"objects": [...as submitted...],
    # "pods": [...the pending pods they expand to, admitted...]}, and ``simulation``
    # the stored run (scheduling.analyses.workloads.WorkloadRun.to_json()).
    kind = models.CharField(max_length=16, choices=AnalysisKind.choices, default=AnalysisKind.POD)
    recreate_victims = models.BooleanField(default=False)
    # A workload run that keeps time: grace periods, arrivals (DESIGN.md, "Timeline").
    timeline = models.BooleanField(default=False)
    # DefaultPreemptionArgs as the cluster's scheduler configuration sets them, and a
    # given random offset (EngineConfig's fields of the same names); {}: the defaults.
    preemption_args = models.JSONField(default=dict, blank=True)
    simulation = models.JSONField(null=True, blank=True)
    # The scheduler configuration it runs under (scheduling.scheduler_config): the
    # KubeSchedulerConfiguration as given (null for a preset or the default), where it
    # came from and the preset's name; kept so a retry or a rerun uses it again.
    scheduler_config = models.JSONField(null=True, blank=True)
    scheduler_source = models.CharField(
        max_length=16, choices=SchedulerSource.choices, default=SchedulerSource.DEFAULT
    )
    scheduler_preset = models.CharField(max_length=64, blank=True, default="")
    # How the answer differs from the default profile's, in one sentence ("" when it
    # does not, or under the default profile).
    scheduler_difference = models.CharField(max_length=500, blank=True, default="")
    # PriorityClass objects the what-if carried (new classes, or new values for the
    # snapshot's), as submitted: in effect for this analysis only, and again on a retry.
    priority_classes = models.JSONField(default=list, blank=True)
    # The lists' words for a workload's answer ("7 of 10 replicas run; 20 pods of 3 apps
    # evicted; ..."): a workload is never summed up as one pod's outcome.
    summary = models.CharField(max_length=500, blank=True, default="")
    # What was removed from the submission before it was stored (env values, envFrom,
    # last-applied annotations): clusters.ingest.scrub's report, shown on the page.
    scrubbed = models.JSONField(default=dict, blank=True)
    # The scheduling cycle a running workload simulation has reached.
    progress_cycle = models.PositiveIntegerField(default=0)
    # A single-pod explanation of one cycle of a workload run: that run and the cycle.
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="cycle_explanations"
    )
    cycle = models.PositiveIntegerField(null=True, blank=True)
    # Who asked (a member on a team's snapshot, its owner, Explain's user): the
    # unfinished work one user may have counts what they asked (scheduling/running/budgets.py).
    # Null: asked by no user (work a cluster's read queued itself).
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="requested_analyses",
    )

    objects = AnalysisQuerySet.as_manager()

    class Meta:
        ordering = ("-created", "-id")
        verbose_name_plural = "analyses"
        indexes = [
            models.Index(fields=["snapshot", "-created"], name="analysis_snapshot_created"),
            # The reconciler's look-ups: queued or running rows, oldest message first.
            models.Index(fields=["status", "enqueued_at"], name="analysis_status_enqueued"),
        ]

    @property
    def scrubbed_lines(self) -> list[str]:
        """What was removed from the submission, in the words the snapshot page uses."""
        return scrub_report_lines(self.scrubbed or {})

    def __str__(self) -> str:
        return f"{self.pod_key} on {self.snapshot_id}"

    def get_absolute_url(self) -> str:
        return reverse("scheduling:analysis-detail", args=[self.pk])

    @cached_property
    def explained(self) -> Explanation | None:
        """The typed explanation, whichever shape it was stored in; None until done."""
        return explanation_load(self.explanation)

    def refresh_from_db(self, *args: Any, **kwargs: Any) -> None:
        # The typed explanation is read from the column: read it again with the column.
        self.__dict__.pop("explained", None)
        self.__dict__.pop("run", None)
        self.__dict__.pop("room", None)
        super().refresh_from_db(*args, **kwargs)

    @property
    def scheduler(self) -> SchedulerChoice:
        """The scheduler configuration it runs under, as stored."""
        return SchedulerChoice(self.scheduler_config, self.scheduler_source, self.scheduler_preset)

    @property
    def is_workload(self) -> bool:
        return self.kind == AnalysisKind.WORKLOAD

    @property
    def is_capacity(self) -> bool:
        return self.kind == AnalysisKind.CAPACITY

    @property
    def is_take_nodes_away(self) -> bool:
        return self.kind == AnalysisKind.TAKE_NODES_AWAY

    @property
    def nodes_away(self) -> dict[str, Any] | None:
        """The stored answer of taking nodes away (the engine's NodesTakenAway.to_dict(),
        DESIGN.md "Taking nodes away"); None for another kind or until done."""
        if not self.is_take_nodes_away or not self.simulation:
            return None
        return nodes_away_from_json(self.simulation)

    @property
    def is_by_class(self) -> bool:
        """A capacity what-if of one size in every user class (no template of its own)."""
        return self.is_capacity and "size" in (self.pod or {})

    @cached_property
    def room(self) -> Capacity | RoomByClass | None:
        """The typed capacity answer; None for another kind or until done."""
        if not self.is_capacity or not self.simulation:
            return None
        return capacity_from_json(self.simulation)

    @cached_property
    def run(self) -> WorkloadRun | None:
        """The typed workload run; None for a pod analysis or until done."""
        if not self.is_workload or not self.simulation:
            return None
        return WorkloadRun.from_json(self.simulation)

    @property
    def result(self) -> dict[str, Any] | None:
        """The result contract of DESIGN.md (what the API and ``whatif --format json`` give):
        the workload contract with the workload's ``outcome`` (all-run, some-run, none-run)
        for a workload, the result contract for a pod, the capacity answer
        (Capacity.to_dict() or RoomByClass.to_dict()) for a capacity what-if, the answer of
        taking nodes away (kind "take-nodes-away") for that what-if; each with
        ``scheduler_profile`` {name, source, preset}."""
        result: dict[str, Any] | None
        if self.is_take_nodes_away:
            away = self.nodes_away
            result = dict(away) if away is not None else None
        elif self.is_capacity:
            room = self.room
            result = room.to_dict() if room is not None else None
        elif self.is_workload:
            # Each with the verdict the command's gates judge (additive to the contract).
            run = self.run
            result = (
                None if run is None else {**run.result, "verdict": verdict_of_run(run).to_dict()}
            )
        else:
            ex = self.explained
            result = (
                None if ex is None else {**ex.to_contract(), "verdict": verdict_of(ex).to_dict()}
            )
        if result is not None and self.scheduler_source != SchedulerSource.DEFAULT:
            # The profile it ran under, as stored (the engine cannot know it came from the
            # snapshot or from a preset); under the default profile the engine's own stands.
            result["scheduler_profile"] = self.scheduler.profile()
        return result

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE_STATUSES

    @property
    def is_done(self) -> bool:
        return self.status == AnalysisStatus.DONE

    @property
    def is_failed(self) -> bool:
        return self.status == AnalysisStatus.FAILED


# 1: the first shape ({"schema_version", "capacity"} or {"schema_version", "by_class"}).
CAPACITY_SCHEMA_VERSION = 1


def capacity_to_json(answer: Capacity | RoomByClass) -> dict[str, Any]:
    key = "by_class" if isinstance(answer, RoomByClass) else "capacity"
    return {"schema_version": CAPACITY_SCHEMA_VERSION, key: answer.to_dict()}


def capacity_from_json(data: dict[str, Any]) -> Capacity | RoomByClass:
    if "by_class" in data:
        return RoomByClass.from_dict(data["by_class"])
    return Capacity.from_dict(data["capacity"])


# Taking nodes away, 1: {"schema_version", "result": NodesTakenAway.to_dict()}.
NODES_AWAY_SCHEMA_VERSION = 1


def nodes_away_to_json(result: dict[str, Any]) -> dict[str, Any]:
    return {"schema_version": NODES_AWAY_SCHEMA_VERSION, "result": result}


def nodes_away_from_json(data: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = data["result"]
    return result


def new_share_token() -> str:
    return secrets.token_urlsafe(32)


class StoppingRun(models.Model):
    """A deleted analysis whose run had started: it still holds a worker, so it still
    counts against its owner's unfinished work until the run notices and stops
    (scheduling/running/cancellation.py)."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="stopping_runs"
    )
    analysis_id = models.BigIntegerField(db_index=True)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"analysis {self.analysis_id}, stopping"


class ShareLinkQuerySet(models.QuerySet["ShareLink"]):
    def active(self) -> ShareLinkQuerySet:
        return self.filter(revoked_at__isnull=True)


class ShareLink(models.Model):
    """An unguessable token that shows one analysis without a login, until revoked."""

    analysis = models.ForeignKey(Analysis, on_delete=models.CASCADE, related_name="share_links")
    token = models.CharField(max_length=64, unique=True, default=new_share_token)
    created = models.DateTimeField(default=timezone.now)
    # Who published it: a member revokes only their own links (clusters/access.py).
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="share_links",
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ShareLinkQuerySet.as_manager()

    class Meta:
        ordering = ("-created", "-id")

    def __str__(self) -> str:
        return f"share link of analysis {self.analysis_id}"

    def get_absolute_url(self) -> str:
        return reverse("scheduling:share", args=[self.token])
