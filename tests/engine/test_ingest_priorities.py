"""What load_cluster keeps beyond the scheduler's view: pods naming a deleted
PriorityClass (admitted while it existed) and ResourceQuotas scoped by class."""

from __future__ import annotations

import pytest

from scheduling.engine import InvalidInput, analyze, load_cluster, simulate
from scheduling.engine.objects import ResourceQuota
from scheduling.engine.priority import MissingClassPod

from .builders import as_list, make_node, make_pod, make_priority_class


def test_a_running_pod_naming_a_deleted_class_keeps_its_spec_priority() -> None:
    ghost = make_pod("old").node("n1").priority_class("ghost").priority(750).obj()
    cluster = load_cluster(as_list(make_node("n1").obj(), ghost))
    (pod,) = cluster.pods
    assert pod.priority == 750
    assert pod.priority_class_name == "ghost"
    # No preemptionPolicy in the spec and no class to copy it from: the API default.
    assert pod.preemption_policy == "PreemptLowerPriority"
    assert cluster.missing_class_pods == [
        MissingClassPod("default/old", "ghost", 750, "spec.priority")
    ]
    assert cluster.warnings == [
        "PriorityClass ghost does not exist but 1 pod names it: 1 keeps spec.priority (750)"
    ]


def test_without_spec_priority_the_global_default_value_is_assumed() -> None:
    cluster = load_cluster(
        as_list(
            make_priority_class("low", 100, global_default=True),
            make_pod("a").node("n1").priority_class("ghost").obj(),
            make_pod("b").node("n1").priority_class("ghost").priority(5).obj(),
        )
    )
    by_key = {m.pod: m for m in cluster.missing_class_pods}
    assert by_key["default/a"] == MissingClassPod("default/a", "ghost", 100, "globalDefault")
    assert by_key["default/b"].priority == 5
    assert [p.priority for p in cluster.pods] == [100, 5]
    assert cluster.warnings == [
        "PriorityClass ghost does not exist but 2 pods name it: 1 keeps spec.priority (5); "
        "1 has no spec.priority and is assumed at the globalDefault low's value 100"
    ]


def test_without_spec_priority_or_a_default_zero_is_assumed() -> None:
    cluster = load_cluster([make_pod("a").priority_class("gone").obj()])
    assert cluster.missing_class_pods == [MissingClassPod("default/a", "gone", 0, "zero")]
    assert cluster.pods[0].priority == 0
    assert "assumed at priority 0" in cluster.warnings[0]


def test_a_pending_what_if_pod_naming_a_missing_class_is_still_refused() -> None:
    # The snapshot itself holds a pod of the deleted class: the what-if pod is not
    # admitted for all that.
    snapshot = as_list(
        make_node("n1").obj(), make_pod("old").node("n1").priority_class("ghost").priority(1).obj()
    )
    with pytest.raises(InvalidInput, match="no PriorityClass with name ghost was found") as e:
        analyze(snapshot, make_pod("new").priority_class("ghost").obj())
    assert e.value.field == "spec.priorityClassName"
    with pytest.raises(InvalidInput, match="no PriorityClass with name ghost was found"):
        simulate(snapshot, [make_pod("new").priority_class("ghost").obj()])


def test_pods_given_the_global_default_at_load_are_recorded() -> None:
    cluster = load_cluster(
        as_list(
            make_priority_class("base", 7, global_default=True),
            make_pod("bare").obj(),
            make_pod("set").priority(0).obj(),
            make_pod("named").priority_class("base").obj(),
        )
    )
    # Only "bare" carried neither a class nor a priority.
    assert cluster.defaulted_pods == ["default/bare"]
    assert [(p.name, p.priority, p.priority_class_name) for p in cluster.pods] == [
        ("bare", 7, "base"),
        ("set", 0, None),
        ("named", 7, "base"),
    ]


def _quota(name: str, namespace: str, *exprs: dict[str, object]) -> dict[str, object]:
    spec: dict[str, object] = {"hard": {"pods": "10", "requests.cpu": "4"}}
    if exprs:
        spec["scopeSelector"] = {"matchExpressions": list(exprs)}
    return {
        "kind": "ResourceQuota",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def test_resource_quotas_are_kept_not_skipped() -> None:
    cluster = load_cluster(
        [
            _quota(
                "high",
                "team-a",
                {"scopeName": "PriorityClass", "operator": "In", "values": ["gold", "silver"]},
                {"scopeName": "BestEffort", "operator": "Exists"},
            ),
            _quota("plain", "team-b"),
            {"kind": "Service", "metadata": {"name": "s"}},
        ]
    )
    assert cluster.skipped == {"Service": 1}
    high, plain = cluster.quotas
    assert (high.namespace, high.name, high.hard) == (
        "team-a",
        "high",
        {"pods": "10", "requests.cpu": "4"},
    )
    # Only the PriorityClass expression is kept, as given.
    assert high.priority_class_scopes == [("In", ("gold", "silver"))]
    assert high.covers_class("gold") and not high.covers_class("bronze")
    assert not high.covers_class(None)
    assert not plain.scoped_by_priority_class


@pytest.mark.parametrize(
    ("operator", "values", "covered"),
    [
        ("In", ["gold"], {"gold"}),
        ("NotIn", ["gold"], {"silver", None}),
        ("Exists", [], {"gold", "silver"}),
        ("DoesNotExist", [], {None}),
    ],
)
def test_quota_priority_class_operators(
    operator: str, values: list[str], covered: set[str | None]
) -> None:
    q = ResourceQuota.from_dict(
        _quota("q", "ns", {"scopeName": "PriorityClass", "operator": operator, "values": values})
    )
    assert {c for c in ("gold", "silver", None) if q.covers_class(c)} == covered


def test_a_bad_quota_operator_is_located() -> None:
    bad = _quota("q", "ns", {"scopeName": "PriorityClass", "operator": "Like", "values": ["x"]})
    with pytest.raises(InvalidInput) as e:
        load_cluster([bad])
    assert (e.value.kind, e.value.namespace, e.value.name) == ("ResourceQuota", "ns", "q")
    assert e.value.field == "spec.scopeSelector.matchExpressions[0].operator"
