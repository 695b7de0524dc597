"""Shapes of GET /api/analyses/compare/ (DESIGN.md, REST API): the query and the answer.

The answer is ``planning.compare.Comparison.to_dict()``; these serializers describe it
for the OpenAPI schema and render it, so the schema cannot list a field the body lacks
(tests/planning/test_compare_api.py renders one through them).
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

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


class NotAnsweredSerializer(serializers.Serializer[Any]):
    a = serializers.ListField(child=serializers.CharField(), required=False)
    b = serializers.ListField(child=serializers.CharField(), required=False)
