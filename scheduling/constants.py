"""States and limits of analyses (the words for kube-scheduler's concepts come from the engine)."""

from __future__ import annotations

from django.db import models


class AnalysisStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


# Statuses a page keeps polling for.
ACTIVE_STATUSES = frozenset({AnalysisStatus.QUEUED, AnalysisStatus.RUNNING})


class AnalysisSource(models.TextChoices):
    MANIFEST = "manifest", "Manifest"
    FORM = "form", "Form"
    CLONE = "clone", "Clone of a pod"
    API = "api", "API"


class AnalysisKind(models.TextChoices):
    POD = "pod", "One pod"
    WORKLOAD = "workload", "Workload"
    CAPACITY = "capacity", "How many fit"
    TAKE_NODES_AWAY = "take-nodes-away", "Take nodes away"


class Outcome(models.TextChoices):
    FITS = "fits", "Fits"
    PREEMPTS = "preempts", "Preempts"
    UNSCHEDULABLE = "unschedulable", "Unschedulable"


class WorkloadOutcome(models.TextChoices):
    """A workload's one word: how many of its replicas run at the end of the run (its
    victims and budgets are in its summary and its result, not in this word)."""

    ALL_RUN = "all-run", "All replicas run"
    SOME_RUN = "some-run", "Some replicas run"
    NONE_RUN = "none-run", "No replica runs"

    @classmethod
    def of(cls, running: int, asked: int) -> WorkloadOutcome:
        if running >= asked:
            return cls.ALL_RUN
        return cls.SOME_RUN if running else cls.NONE_RUN


class NodesAwayVerdict(models.TextChoices):
    """Taking nodes away, in one word: every pod evicted, deleted or left as a drain
    leaves it (completes), an eviction refused by a PodDisruptionBudget (blocked), or
    a pod without a controller and no --force (stopped, as kubectl drain stops)."""

    COMPLETES = "completes", "Completes"
    BLOCKED = "blocked", "Blocked by a PDB"
    STOPPED = "stopped", "Stopped"


# An analysis' outcome: a pod's (and a capacity what-if's) word, a workload's, or the
# verdict of taking nodes away.
ANALYSIS_OUTCOMES = [*Outcome.choices, *WorkloadOutcome.choices, *NodesAwayVerdict.choices]


# How many parsed clusters one worker process keeps (least recently used goes first).
CLUSTER_CACHE_SIZE = 4

# After this long queued, the result page says no worker seems to be taking analyses.
STALE_QUEUED_SECONDS = 120

# Rows per page in the result page's long tables.
CANDIDATES_PER_PAGE = 25
REJECTED_GROUP_NODES_PER_PAGE = 50
# Victims shown on the before/after picture by name; the rest are drawn as one block.
SVG_MAX_LABELLED_VICTIMS = 12

# Workload result page: cycles, replicas and victims per page; how often (in cycles) a
# running simulation writes its progress to the row.
WORKLOAD_ROWS_PER_PAGE = 50
WORKLOAD_PROGRESS_EVERY_CYCLES = 10
# Cycles drawn in the run picture; a longer run shows its first ones and says so.
WORKLOAD_SVG_MAX_CYCLES = 60
# Victims named per owner on the workload page (the rest are counted); owners per page.
VICTIMS_LISTED_PER_GROUP = 20
VICTIM_GROUPS_PER_PAGE = 25
# Room per tier (kind capacity): replicas per page of its table.
CAPACITY_ROWS_PER_PAGE = 50

# The Celery task that runs an analysis: services enqueue it by this name
# (operations.faults.publish), the tasks module registers under it.
ANALYSIS_RUN_TASK = "scheduling.analysis_run"
# Taking nodes away: rows per page of its per-node, returning-pod and preemption lists.
NODES_AWAY_ROWS_PER_PAGE = 50
# Nodes drawn in its per-node picture; more are listed in the table only.
NODES_AWAY_SVG_MAX_NODES = 40
