"""States, limits and the words the result page uses for kube-scheduler's concepts."""

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


class Outcome(models.TextChoices):
    FITS = "fits", "Fits"
    PREEMPTS = "preempts", "Preempts"
    UNSCHEDULABLE = "unschedulable", "Unschedulable"


# How many parsed clusters one worker process keeps (least recently used goes first).
CLUSTER_CACHE_SIZE = 4

# Largest manifest accepted (pasted or uploaded).
MAX_MANIFEST_BYTES = 1024 * 1024

# After this long queued, the result page says no worker seems to be taking analyses.
STALE_QUEUED_SECONDS = 120

# Rows per page in the result page's long tables.
CANDIDATES_PER_PAGE = 25
REJECTED_GROUP_NODES_PER_PAGE = 50
# Victims shown on the before/after picture by name; the rest are drawn as one block.
SVG_MAX_LABELLED_VICTIMS = 12

# The tie-break chain of pickOneNodeForPreemption, in kube-scheduler's order:
# (eliminated_by key, column title, candidate field, one-sentence explanation).
CRITERIA: tuple[tuple[str, str, str, str], ...] = (
    (
        "pdb_violations",
        "PDB violations",
        "pdb_violations",
        "Fewest PodDisruptionBudget violations: the scheduler first prefers the node where "
        "evicting the victims breaks the fewest disruption budgets.",
    ),
    (
        "highest_priority",
        "Highest victim priority",
        "highest_victim_priority",
        "Lowest highest-priority victim: among those, it prefers the node whose most "
        "important victim is the least important.",
    ),
    (
        "priority_sum",
        "Sum of priorities",
        "priority_sum",
        "Smallest sum of victim priorities: then the node where the victims' priorities "
        "add up to the least. kube-scheduler adds 2^31 to each priority before summing, so "
        "with negative priorities a node with more victims still counts as the larger sum.",
    ),
    (
        "victim_count",
        "Number of victims",
        "victim_count",
        "Fewest victims: then the node where the fewest pods have to go.",
    ),
    (
        "start_time",
        "Start time",
        "highest_victims_earliest_start",
        "Latest start of the highest-priority victims: then the node whose most important "
        "victims started most recently, so the longest-running work is kept.",
    ),
    (
        "tie",
        "Tie",
        "",
        "Still tied: kube-scheduler picks one of the remaining nodes at random; this tool "
        "picks the first by name and lists the whole tie set.",
    ),
)
