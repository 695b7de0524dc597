"""A whole manifest (what helm template or kustomize build prints): its workloads rolled
out, its PodDisruptionBudgets joined to the snapshot, every other kind skipped and
counted, a Secret's values never kept."""

from __future__ import annotations

from typing import Any

import pytest

from scheduling.engine import InvalidInput, load_cluster
from scheduling.engine.budgets import disruptions_allowed, with_budgets
from scheduling.engine.objects import PDB
from scheduling.engine.words import plural
from scheduling.engine.workload import (
    counted_kinds,
    expand_workload,
    skipped_note,
    strip_skipped,
)
from tests.engine.builders import make_node, make_pdb, make_pod

SECRET = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "db", "namespace": "shop"},
    "stringData": {"password": "s3cr3t-value"},
}
CONFIG = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}}
SERVICE = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}, "spec": {}}


def _pdb(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "db"}}, **spec},
    }


DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "x"}]},
        },
    },
}


def test_chart_output_is_taken_whole_and_what_it_skips_is_counted() -> None:
    objects = strip_skipped([SECRET, CONFIG, SERVICE, _pdb("db"), DEPLOYMENT, dict(SERVICE)])
    assert "s3cr3t-value" not in repr(objects)
    assert objects[0] == {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "db", "namespace": "shop"},
    }
    w = expand_workload(objects)
    assert [o.kind for o in w.objects] == ["Deployment"]
    assert [b["metadata"]["name"] for b in w.budgets] == ["db"]
    assert w.skipped == {"Secret": 1, "ConfigMap": 1, "Service": 2}
    assert skipped_note(w.skipped).startswith("Skipped 1 Secret, 1 ConfigMap and 2 Services:")


def test_a_manifest_without_a_workload_says_what_it_held() -> None:
    with pytest.raises(InvalidInput) as e:
        expand_workload(strip_skipped([SECRET, SERVICE, _pdb("db")]))
    assert "holds 1 Secret, 1 Service and 1 PodDisruptionBudget and no Pod or workload" in str(
        e.value
    )
    assert "DaemonSet" in str(e.value)


@pytest.mark.parametrize(
    ("word", "n", "says"),
    [
        ("PriorityClass", 3, "PriorityClasses"),
        ("PriorityClass", 1, "PriorityClass"),
        ("NetworkPolicy", 2, "NetworkPolicies"),
        ("Ingress", 2, "Ingresses"),
        ("Gateway", 2, "Gateways"),
        ("Pod", 2, "Pods"),
    ],
)
def test_plurals_as_english_writes_them(word: str, n: int, says: str) -> None:
    assert plural(n, word) == f"{n} {says}"
    assert counted_kinds({word: n}) == f"{n} {says}"


@pytest.mark.parametrize(
    ("spec", "healthy", "allowed"),
    [
        ({"minAvailable": 2}, 3, 1),
        ({"minAvailable": "50%"}, 3, 1),  # ceil(1.5) = 2 desired
        ({"maxUnavailable": 1}, 3, 1),
        ({"maxUnavailable": "34%"}, 3, 2),  # ceil(1.02) = 2 unavailable allowed
        ({"maxUnavailable": 0}, 3, 0),
        ({"minAvailable": 5}, 3, 0),
    ],
)
def test_a_new_budget_allows_what_the_disruption_controller_computes(
    spec: dict[str, Any], healthy: int, allowed: int
) -> None:
    assert disruptions_allowed(PDB.from_dict(_pdb("db", **spec)), healthy) == allowed


def test_a_manifests_budget_replaces_the_snapshots_of_the_same_name() -> None:
    objects = [
        make_node("n1").capacity(cpu="4", memory="8Gi", pods="10").obj(),
        *[make_pod(f"db-{i}").labels(app="db").node("n1").req(cpu="1").obj() for i in range(3)],
        make_pdb("db", match_labels={"app": "db"}, min_available=3),
    ]
    cluster = load_cluster(objects)
    view, records = with_budgets(cluster, [_pdb("db", maxUnavailable=1)])
    assert [(p.name, p.disruptions_allowed) for p in view.pdbs] == [("db", 1)]
    assert [(r.pdb, r.replaces, r.matching_pods) for r in records] == [("default/db", True, 3)]
    pod = next(p for ni in view.node_infos for p in ni.pods if p.name == "db-0")
    assert [view.pdbs[i].name for i in view.pdbs_for_pod(pod)] == ["db"]
    # The snapshot's cluster is left as it was.
    assert [(p.name, p.disruptions_allowed) for p in cluster.pdbs] == [("db", 0)]
    added, records = with_budgets(cluster, [_pdb("db-new", maxUnavailable=1)])
    assert [p.name for p in added.pdbs] == ["db", "db-new"]
    assert records[0].replaces is False
