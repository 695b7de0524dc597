"""Shapes of GET /api/analyses/compare/ (DESIGN.md, REST API): the query and the answer.

The answer is ``planning.compare.Comparison.to_dict()``; these serializers describe it
for the OpenAPI schema and render it, so the schema cannot list a field the body lacks
(tests/planning/test_compare_api.py renders one through them).
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from scheduling.api.serializers import SizeSerializer
from scheduling.constants import ANALYSIS_OUTCOMES, AnalysisKind

# The largest id the database's bigint keys hold: a larger one is a 400, not a 404.
MAX_ID = 2**63 - 1


class CompareQuerySerializer(serializers.Serializer[Any]):
    a = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="Analysis A's id.")
    b = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="Analysis B's id.")


class SnapshotRefSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()


class AnswerSerializer(serializers.Serializer[Any]):
    """One analysis' answer on the terms a pod and a workload share."""

    analysis = serializers.IntegerField(help_text="The analysis' id.")
    snapshot = SnapshotRefSerializer()
    # The analyses' own choices: the schema names them once (KindEnum, OutcomeEnum).
    kind = serializers.ChoiceField(choices=AnalysisKind.choices)
    pod = serializers.CharField(
        help_text="namespace/name of the pod; a workload: its objects (“Deployment default/web”)."
    )
    priority_class = serializers.CharField(allow_null=True)
    priority = serializers.IntegerField(allow_null=True)
    outcome = serializers.ChoiceField(
        choices=ANALYSIS_OUTCOMES,
        help_text="A pod: fits, preempts or unschedulable; a workload: all-run, some-run or "
        "none-run (the analyses list's word).",
    )
    node = serializers.CharField(
        allow_null=True, help_text="A pod: the node it is bound to or nominated for."
    )
    nodes = serializers.ListField(
        child=serializers.CharField(), help_text="Every node the pods asked about run on."
    )
    tied_nodes = serializers.ListField(
        child=serializers.CharField(),
        help_text="A pod whose node is one of several tied (the top score, or every "
        "preemption criterion): all of them, sorted; kube-scheduler picks one at random "
        "and `node` is the first by name. Empty when the node was the only choice.",
    )
    victims = serializers.ListField(child=serializers.CharField(), help_text="Sorted.")
    pdb_violations = serializers.IntegerField(
        help_text="A pod: the result's pdb_violations; a workload: pods deleted beyond "
        "their budgets (the exceeded PDBs' overruns)."
    )
    pdbs = serializers.ListField(
        child=serializers.CharField(),
        help_text="The PDBs broken: a pod's victims exceed them; a workload's pdb_report "
        "says exceeded.",
    )
    placed = serializers.IntegerField(help_text="Pods asked about that run (or are nominated).")
    asked = serializers.IntegerField(help_text="Pods asked about: 1, or the workload's replicas.")
    recreated = serializers.IntegerField(
        allow_null=True, help_text="A run with recreate_victims: the victims made again."
    )
    recreated_running = serializers.IntegerField(
        allow_null=True, help_text="Of those, how many run at the end."
    )


class OwnerCountSerializer(serializers.Serializer[Any]):
    running = serializers.IntegerField(
        allow_null=True,
        help_text="The owner's pods running at the end; null when the answer does not say "
        "(a single pod's result names its victims, not the size of their owners).",
    )
    change = serializers.IntegerField(
        help_text="Pods the what-if added (its own replicas) or took away (victims)."
    )


class OwnerRowSerializer(serializers.Serializer[Any]):
    owner = serializers.CharField(
        help_text="“ReplicaSet default/blue-tcsrb”; a bare pod: “Pod ns/name”."
    )
    a = OwnerCountSerializer(allow_null=True, help_text="null: untouched in A.")
    b = OwnerCountSerializer(allow_null=True, help_text="null: untouched in B.")


class ComparisonSerializer(serializers.Serializer[Any]):
    sentence = serializers.CharField(help_text="The difference, in one sentence.")
    same = serializers.BooleanField(
        help_text="Same outcome, nodes, victims, budgets and replicas per owner."
    )
    a = AnswerSerializer()
    b = AnswerSerializer()
    victims_added = serializers.ListField(
        child=serializers.CharField(), help_text="Preempted in B, not in A (sorted)."
    )
    victims_removed = serializers.ListField(
        child=serializers.CharField(), help_text="Preempted in A, not in B (sorted)."
    )
    victims_kept = serializers.ListField(
        child=serializers.CharField(), help_text="Preempted in both (sorted)."
    )
    pdbs_added = serializers.ListField(child=serializers.CharField(), help_text="Broken in B only.")
    pdbs_removed = serializers.ListField(
        child=serializers.CharField(), help_text="Broken in A only."
    )
    owners = OwnerRowSerializer(
        many=True, help_text="Replicas per owner: the workloads' own and the victims' owners."
    )


class RoomSerializer(serializers.Serializer[Any]):
    """One class's room for the size in one capacity answer."""

    priority_class = serializers.CharField(
        help_text="The PriorityClass; a pod without one: “priority N”."
    )
    priority = serializers.IntegerField()
    fit_now = serializers.IntegerField(help_text="Replicas that fit as the cluster stands.")
    fit_by_preempting = serializers.IntegerField(help_text="Replicas placed by preempting.")
    placed = serializers.IntegerField(help_text="fit_now + fit_by_preempting.")
    unplaced = serializers.IntegerField(help_text="Of the limit, the replicas left pending.")
    victims = serializers.IntegerField(help_text="Pods the run deleted.")
    pdbs_exceeded = serializers.IntegerField(help_text="PDBs taken past their disruptionsAllowed.")


class CapacityAnswerSerializer(serializers.Serializer[Any]):
    """One capacity analysis' answer: a row per class (an answer for one pod: one row)."""

    analysis = serializers.IntegerField(help_text="The analysis' id.")
    snapshot = SnapshotRefSerializer()
    kind = serializers.CharField(help_text="“capacity”.")
    form = serializers.ChoiceField(
        choices=["replicas", "by-class"],
        help_text="replicas: how many replicas of one pod fit; by-class: the room per tier "
        "(one size in every user PriorityClass).",
    )
    pod = serializers.CharField(help_text="namespace/name of the pod; by-class: empty.")
    size = SizeSerializer()
    limit = serializers.IntegerField(help_text="Replicas asked for, at most.")
    classes = RoomSerializer(many=True, help_text="Highest priority first.")


class RoomRowSerializer(serializers.Serializer[Any]):
    priority_class = serializers.CharField()
    a = RoomSerializer(allow_null=True, help_text="null: the class is not in A.")
    b = RoomSerializer(allow_null=True, help_text="null: the class is not in B.")
    replicas_change = serializers.IntegerField(help_text="B's placed minus A's (0 when absent).")
    victims_change = serializers.IntegerField(help_text="B's victims minus A's.")


class CapacityComparisonSerializer(serializers.Serializer[Any]):
    kind = serializers.CharField(
        help_text="“capacity”: two capacity answers (a pod's or a workload's comparison has "
        "no kind of its own)."
    )
    sentence = serializers.CharField(
        help_text="The difference in one sentence: replicas that fit, then their cost."
    )
    same = serializers.BooleanField(help_text="Same size and the same counts in every class.")
    a = CapacityAnswerSerializer()
    b = CapacityAnswerSerializer()
    classes = RoomRowSerializer(
        many=True,
        help_text="Each class in either answer, highest priority first; with an answer "
        "for one pod's replicas, that pod's class alone.",
    )


class NotAnsweredSerializer(serializers.Serializer[Any]):
    a = serializers.ListField(child=serializers.CharField(), required=False)
    b = serializers.ListField(child=serializers.CharField(), required=False)
