"""What a result page shows of each kind of answer: one pod's, a workload's run and a
capacity question's, built from the engine's typed results.
"""

from __future__ import annotations

from typing import Any

from scheduling.analyses.workloads import WorkloadRun
from scheduling.constants import (
    CANDIDATES_PER_PAGE,
    CAPACITY_ROWS_PER_PAGE,
    NODES_AWAY_ROWS_PER_PAGE,
    NODES_AWAY_SVG_MAX_NODES,
    REJECTED_GROUP_NODES_PER_PAGE,
    VICTIM_GROUPS_PER_PAGE,
    WORKLOAD_ROWS_PER_PAGE,
)
from scheduling.engine import CandidateRecord, Explanation
from scheduling.engine.capacity import Capacity, RoomByClass
from scheduling.presenters import capacity as capacity_presenters
from scheduling.presenters import devices as device_presenters
from scheduling.presenters import pod as pod_presenters
from scheduling.presenters import take_nodes_away as away_presenters
from scheduling.presenters import timeline as timeline_presenters
from scheduling.presenters import volumes as volume_presenters
from scheduling.presenters import workload as workload_presenters
from scheduling.reports.manifest import manifest_lines


def workload_context(
    run: WorkloadRun,
    *,
    cycles_page: str | None = None,
    replicas_page: str | None = None,
    victims_page: str | None = None,
    pending_page: str | None = None,
) -> dict[str, Any]:
    """What the workload result page shows of a stored run; long lists paginated."""
    waits = timeline_presenters.pod_waits(run)
    return {
        "run": run,
        "sentence": workload_presenters.workload_sentence(run),
        "stop_text": workload_presenters.stop_reason_text(run),
        "cascade": workload_presenters.cascade_sentence(run),
        "glossary": workload_presenters.glossary(run),
        "pdb_paragraphs": [(r, workload_presenters.pdb_paragraph(r)) for r in run.pdb_report],
        "victim_page": pod_presenters.paginate(
            workload_presenters.victim_groups(run),
            page=victims_page,
            per_page=VICTIM_GROUPS_PER_PAGE,
        ),
        "run_svg": workload_presenters.run_svg(run),
        "timeline_svg": timeline_presenters.timeline_svg(run),
        "wait_sentences": timeline_presenters.waits_sentences(run, waits),
        "time_zero": timeline_presenters.time_zero_sentence(run),
        "pod_waits": {w.pod: w for w in waits},
        "nodes_svg": workload_presenters.nodes_svg(run.nodes),
        "assumptions": volume_presenters.assumption_sentences(run),
        "bound_claims": volume_presenters.bound_claim_sentences(run),
        "node_devices": device_presenters.node_devices(run),
        "hypothetical": pod_presenters.hypothetical_class_lines(run.hypothetical_classes),
        "manifest_lines": manifest_lines(run.contract.get("manifest") or {}),
        "cycle_page": pod_presenters.paginate(
            run.cycles, page=cycles_page, per_page=WORKLOAD_ROWS_PER_PAGE
        ),
        "pod_page": pod_presenters.paginate(
            run.pods, page=replicas_page, per_page=WORKLOAD_ROWS_PER_PAGE
        ),
        "pending_page": pod_presenters.paginate(
            run.left_pending(),
            page=pending_page,
            per_page=WORKLOAD_ROWS_PER_PAGE,
        ),
    }


def capacity_context(
    room: Capacity | RoomByClass, *, replicas_page: str | None = None
) -> dict[str, Any]:
    """What the "how many fit?" page shows: the sentence, the cost curve and the replicas
    page by page; or, for every class at once, the table."""
    if isinstance(room, RoomByClass):
        return {
            "room_table": room,
            "sentence": capacity_presenters.room_sentence(room),
            "room_unplaced": capacity_presenters.room_unplaced(room),
        }
    return {
        "capacity": room,
        "sentence": capacity_presenters.capacity_sentence(room),
        "stop_text": capacity_presenters.stop_text(room),
        "curve_svg": capacity_presenters.curve_svg(room),
        "class_fills": capacity_presenters.class_fills(room),
        "template_size": capacity_presenters.size_text(dict(room.template.requests)),
        "pdbs_exceeded": [(p, room.pdb_budgets[p]) for p in room.pdbs_exceeded],
        "replica_page": pod_presenters.paginate(
            capacity_presenters.replica_rows(room),
            page=replicas_page,
            per_page=CAPACITY_ROWS_PER_PAGE,
        ),
    }


def nodes_away_context(
    result: dict[str, Any],
    *,
    like: str | None = None,
    nodes_page: str | None = None,
    returning_page: str | None = None,
    preemptions_page: str | None = None,
) -> dict[str, Any]:
    """What the take-nodes-away page shows: the verdict's sentence first, the picture,
    then node by node, the returning pods and the preemptions, each paginated."""
    answer = away_presenters.NodesAway.from_dict(result)
    per = NODES_AWAY_ROWS_PER_PAGE
    return {
        "away": answer,
        "sentence": answer.sentence,
        "counts": away_presenters.counts_line(answer),
        "away_picture": away_presenters.picture(answer, max_nodes=NODES_AWAY_SVG_MAX_NODES),
        "away_advice": away_presenters.advice_lines(answer, like=like),
        "criteria": pod_presenters.CRITERIA_EXPLAINED,
        "away_nodes_page": pod_presenters.paginate(answer.nodes, page=nodes_page, per_page=per),
        "returning_page": pod_presenters.paginate(
            [(r, answer.victims_of(r)) for r in answer.returning],
            page=returning_page,
            per_page=per,
        ),
        "criterion_columns": pod_presenters.CRITERION_COLUMNS,
        "preemptions_page": pod_presenters.paginate(
            [(p, away_presenters.tie_rows(p)) for p in answer.preemptions],
            page=preemptions_page,
            per_page=per,
        ),
    }


def result_context(
    ex: Explanation,
    *,
    cpage: str | None = None,
    weights: dict[str, int] | None = None,
    profile: str = "the default profile",
) -> dict[str, Any]:
    """What the result templates show of an explanation (the page, the shared page, and
    the tests that compare it with the CLI text); ``weights``: the Score weights of the
    profile it ran under (None: the default profile's)."""
    candidates = ex.candidates
    page = pod_presenters.paginate(candidates, page=cpage, per_page=CANDIDATES_PER_PAGE)
    groups = pod_presenters.rejected_groups(ex)
    reason, message = pod_presenters.event_message(ex)
    return {
        "ex": ex,
        "sentence": pod_presenters.outcome_sentence(ex),
        "why": pod_presenters.why_sentence(ex),
        "notices": pod_presenters.input_notices(ex),
        "hypothetical": pod_presenters.hypothetical_class_lines(ex.hypothetical_classes),
        "victim_notes": pod_presenters.victim_notes(ex),
        "event_reason": reason,
        "event_message": message,
        "score_table": pod_presenters.score_table(ex, weights=weights),
        "score_profile": profile,
        "criteria": pod_presenters.CRITERIA_EXPLAINED,
        "criterion_columns": pod_presenters.CRITERION_COLUMNS,
        "candidate_page": page,
        "candidate_rows": pod_presenters.candidate_rows(
            [c for c in page.object_list if isinstance(c, CandidateRecord)],
            start=page.start_index() - 1 if candidates else 0,
        ),
        "groups": groups,
        "group_preview": REJECTED_GROUP_NODES_PER_PAGE,
        "rejected_count": sum(g.count for g in groups),
        "notes": pod_presenters.sampling_notes(ex),
        "warnings": ex.warnings,
        "svg": pod_presenters.capacity_svg(ex.chosen_node, ex.victim_details, outcome=ex.outcome),
        "victim_rows": pod_presenters.victim_rows(ex),
        # Where a volume decided: the pod's pins, each rejected node's volume plugin and
        # attach counts (the tie-break rows and the groups of other nodes show them).
        "volume_pins": volume_presenters.pin_sentences(ex),
        "node_volumes": volume_presenters.node_volumes(ex),
        "group_volumes": volume_presenters.group_volumes(ex, groups),
        # A pod waiting for DRA devices: who holds them, and what works instead.
        "devices": device_presenters.device_card(ex),
    }
