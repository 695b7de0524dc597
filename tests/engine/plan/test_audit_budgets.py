"""The PodDisruptionBudget rules: critical apps without one, and budgets that cannot work."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from scheduling.engine import load_cluster

from ..builders import make_node, make_pdb, make_pod, make_priority_class
from .helpers import deployment_pod, findings, owned, replica


def _two_tiers(*extra: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        make_priority_class("low", 10, global_default=True),
        make_priority_class("high", 1000),
        make_node("n1").obj(),
        deployment_pod(
            replica("web", 0).node("n1").priority_class("high").label("tier", "front"), "web"
        ),
        deployment_pod(
            replica("web", 1).node("n1").priority_class("high").label("tier", "back"), "web"
        ),
        make_pod("batch-1").node("n1").priority_class("low").label("app", "batch").obj(),
        owned(make_pod("agent-n1").node("n1").priority_class("high").obj(), "DaemonSet", "agent"),
        *extra,
    ]


def test_the_top_tier_apps_without_a_budget() -> None:
    (f,) = findings(_two_tiers(), "critical-app-without-pdb")
    # The DaemonSet in the same class is left out; "batch" is below the tier.
    assert f.objects == ("Deployment default/web",)
    assert (
        f.message
        == "Deployment default/web (2 pods, PriorityClass high) has no PodDisruptionBudget"
    )
    pdb = yaml.safe_load(f.fix)
    # The selector keeps the labels both replicas share, not the template hash or "tier".
    assert pdb["spec"] == {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "web"}}}
    assert pdb["metadata"] == {"name": "web-pdb", "namespace": "default"}


def test_a_budget_or_another_critical_tier_changes_the_answer() -> None:
    budget = make_pdb("web-pdb", match_labels={"app": "web"}, disruptions_allowed=1)
    assert findings(_two_tiers(budget), "critical-app-without-pdb") == []
    (f,) = findings(_two_tiers(budget), "critical-app-without-pdb", critical_classes=["low"])
    assert f.objects == ("Pod default/batch-1",)


def test_no_critical_tier_when_pods_use_one_user_value() -> None:
    objects = [make_priority_class("only", 10), make_pod("a").priority_class("only").obj()]
    assert findings(objects, "critical-app-without-pdb") == []


def test_an_unknown_critical_class_is_refused() -> None:
    from scheduling.engine import InvalidInput
    from scheduling.engine.plan import audit

    with pytest.raises(InvalidInput, match="no PriorityClass with name gold was found"):
        audit(load_cluster(_two_tiers()), critical_classes=["gold"])


def _db(spec: dict[str, Any], replicas: int = 2) -> list[dict[str, Any]]:
    pdb = make_pdb("db-pdb", match_labels={"app": "db"})
    pdb["spec"] = {"selector": pdb["spec"]["selector"], **spec}
    pods = [make_pod(f"db-{i}").label("app", "db").obj() for i in range(replicas)]
    return [*pods, pdb]


@pytest.mark.parametrize(
    ("spec", "shown"),
    [
        ({"minAvailable": 2}, "minAvailable 2"),
        ({"minAvailable": 3}, "minAvailable 3"),
        ({"minAvailable": "100%"}, "minAvailable 100%"),
        ({"maxUnavailable": 0}, "maxUnavailable 0"),
        ({"maxUnavailable": "0%"}, "maxUnavailable 0%"),
    ],
)
def test_budgets_that_can_never_allow_a_disruption(spec: dict[str, Any], shown: str) -> None:
    (f,) = findings(_db(spec), "pdb-never-allows")
    assert f.objects == ("PodDisruptionBudget default/db-pdb",)
    assert (
        f.message
        == f"PodDisruptionBudget default/db-pdb ({shown}) covers 2 pods: it can never allow a disruption"
    )
    assert yaml.safe_load(f.fix)["spec"]["maxUnavailable"] == 1


@pytest.mark.parametrize(
    "spec",
    [
        {"minAvailable": 1},
        {"minAvailable": "50%"},
        {"maxUnavailable": 1},
        {"maxUnavailable": "10%"},
    ],
)
def test_budgets_that_can_allow_one(spec: dict[str, Any]) -> None:
    # 50% of 2 pods rounds up to 1 of 2 required; 10% of 2 rounds up to 1 unavailable.
    assert findings(_db(spec), "pdb-never-allows") == []


def test_a_single_replica_at_half_is_never_disruptable() -> None:
    # 50% of 1 pod rounds up to 1: the only pod must stay.
    (f,) = findings(_db({"minAvailable": "50%"}, replicas=1), "pdb-never-allows")
    assert "covers 1 pod" in f.message


def test_budgets_matching_no_pod() -> None:
    typo = make_pdb("typo", match_labels={"app": "dbb"})
    elsewhere = make_pdb("other-ns", "prod", match_labels={"app": "db"})
    no_selector = make_pdb("none")
    del no_selector["spec"]["selector"]
    objects = [*_db({"minAvailable": 1}), typo, elsewhere, no_selector]
    found = findings(objects, "pdb-matches-nothing")
    assert [f.objects for f in found] == [
        ("PodDisruptionBudget default/none",),
        ("PodDisruptionBudget default/typo",),
        ("PodDisruptionBudget prod/other-ns",),
    ]
    assert (
        found[0].message
        == "PodDisruptionBudget default/none has no selector and matches no pod of namespace default"
    )
    assert (
        found[1].message
        == "PodDisruptionBudget default/typo selects app=dbb and matches no pod of namespace default"
    )
    # The budget that does match is not among them, nor in pdb-never-allows (1 of 2).
    assert findings(objects, "pdb-never-allows") == []


def test_a_budget_matching_its_pods_matches_something() -> None:
    assert findings(_db({"minAvailable": 1}), "pdb-matches-nothing") == []


def test_an_empty_selector_is_ignored_by_preemption_and_named() -> None:
    everything = make_pdb("all", selector={})
    objects = [
        make_node("n1").obj(),
        make_pod("a").node("n1").label("app", "a").obj(),
        make_pod("b").node("n1").label("app", "b").obj(),
        everything,
    ]
    cluster = load_cluster(objects)
    # What the rule rests on: the cluster's matching (kube-scheduler v1.35) skips it.
    assert all(cluster.pdbs_for_pod(p) == () for p in cluster.pods)
    (f,) = findings(objects, "pdb-empty-selector")
    assert f.objects == ("PodDisruptionBudget default/all",)
    assert "eviction counts all 2 pods of namespace default against it" in f.message
    # One budget per app instead.
    selectors = [d["spec"]["selector"] for d in yaml.safe_load_all(f.fix)]
    assert selectors == [{"matchLabels": {"app": "a"}}, {"matchLabels": {"app": "b"}}]
    # An empty selector matches for eviction, so it is not "matches nothing" as well.
    assert findings(objects, "pdb-matches-nothing") == []


def test_a_selector_with_labels_is_not_empty() -> None:
    assert findings(_db({"minAvailable": 1}), "pdb-empty-selector") == []


def test_a_budget_matching_nothing_shows_its_selector_as_kubectl_writes_it() -> None:
    selector = {
        "matchLabels": {"app": "db"},
        "matchExpressions": [
            {"key": "tier", "operator": "In", "values": ["b", "a"]},
            {"key": "zone", "operator": "Exists"},
            {"key": "canary", "operator": "DoesNotExist"},
            {"key": "track", "operator": "NotIn", "values": ["beta"]},
        ],
    }
    # The db pods carry no tier label, so nothing matches.
    objects = [*_db({"minAvailable": 1}), make_pdb("strict", selector=selector)]
    (f,) = findings(objects, "pdb-matches-nothing")
    assert f.message == (
        "PodDisruptionBudget default/strict selects app=db,tier in (a,b),zone,!canary,"
        "track notin (beta) and matches no pod of namespace default"
    )
