"""Writes: submit a what-if, run it, record how it ended, share it; a module per kind of
analysis, as presenters/ and reports/ are split.

- ``pod``, ``workload``, ``capacity``, ``take_nodes_away``: each kind submitted
  (``analysis_create*``), run by the engine and stored;
- ``common``: what they share (the row queued and its task sent by name, the snapshot's
  cluster, claimed, done, failed, retried, deleted); it imports no kind;
- ``dispatch``: what depends on the kind (a manifest that is a pod or a workload, a rerun
  on another snapshot, ``analysis_run`` which the Celery task calls);
- ``sharing``: share links.

The HTML views, the API and the Celery task call these names; scheduling/analyses/submission.py
reads and checks the input first. This package only re-exports; its modules import each
other by module.
"""

from .capacity import (
    analysis_create_capacity,
    capacity_compute,
    capacity_outcome,
    capacity_store,
    room_pod_key,
)
from .common import (
    Progress,
    analysis_claim,
    analysis_delete,
    analysis_done,
    analysis_enqueue,
    analysis_fail,
    analysis_manifest,
    analysis_publish,
    analysis_queue,
    analysis_requeue_stopped,
    analysis_retry,
    engine_profile,
    snapshot_load,
)
from .dispatch import analysis_create_from_manifest, analysis_rerun, analysis_run
from .pod import analysis_create, cycle_explanation_create, pod_store
from .sharing import share_link_create, share_link_revoke
from .take_nodes_away import (
    analysis_create_take_nodes_away,
    analysis_rerun_take_nodes_away,
    take_nodes_away_compute,
    take_nodes_away_store,
)
from .workload import (
    analysis_create_workload,
    workload_outcome,
    workload_simulate,
    workload_store,
    workload_summary,
)

__all__ = [
    "Progress",
    "analysis_claim",
    "analysis_create",
    "analysis_create_capacity",
    "analysis_create_from_manifest",
    "analysis_create_take_nodes_away",
    "analysis_create_workload",
    "analysis_delete",
    "analysis_done",
    "analysis_enqueue",
    "analysis_fail",
    "analysis_manifest",
    "analysis_publish",
    "analysis_queue",
    "analysis_requeue_stopped",
    "analysis_rerun",
    "analysis_rerun_take_nodes_away",
    "analysis_retry",
    "analysis_run",
    "capacity_compute",
    "capacity_outcome",
    "capacity_store",
    "cycle_explanation_create",
    "engine_profile",
    "pod_store",
    "room_pod_key",
    "share_link_create",
    "share_link_revoke",
    "snapshot_load",
    "take_nodes_away_compute",
    "take_nodes_away_store",
    "workload_outcome",
    "workload_simulate",
    "workload_store",
    "workload_summary",
]
