from __future__ import annotations

from io import StringIO
from typing import Any

from django.core.management import call_command

from clusters import models, selectors
from clusters.demo import demo_cat3_pod, demo_objects
from scheduling.engine import analyze, load_cluster


def test_it_builds_the_planning_example() -> None:
    cluster = load_cluster(demo_objects())
    classes = {pc.name: pc for pc in cluster.priority_classes}
    assert classes["cat-1"].value == 10_000 and classes["cat-1"].global_default
    assert classes["cat-2"].value == 20_000 and not classes["cat-2"].global_default
    assert classes["cat-3"].value == 30_000
    assert classes["cluster-service"].value == 1_000_000
    apps = {
        app: [p for p in cluster.pods if p.labels.get("app") == app]
        for app in ("blue", "purple", "green", "red")
    }
    assert {app: {p.priority_class_name for p in pods} for app, pods in apps.items()} == {
        "blue": {"cat-1"},
        "purple": {"cat-1"},
        "green": {"cat-2"},
        "red": {"cat-2"},
    }
    assert cluster.warnings == []


def test_it_keeps_pdb_status_consistent_with_the_pods() -> None:
    cluster = load_cluster(demo_objects())
    for pdb in cluster.pdbs:
        matched = [p for p in cluster.pods if pdb.matches(p)]
        assert pdb.disruptions_allowed == len(matched) - pdb.min_available
    mins = {pdb.name: pdb.min_available for pdb in cluster.pdbs}
    assert mins == {"blue-pdb": 3, "purple-pdb": 3, "green-pdb": 2, "red-pdb": 2}


def test_it_is_full_so_a_cat3_pod_must_preempt() -> None:
    result = analyze(demo_objects(), demo_cat3_pod()).to_dict()
    assert result["outcome"] == "preempts"
    assert result["feasible_nodes"] == []
    assert result["victims"]
    # Victims come from the lowest class that frees enough: cat-1.
    assert all(v.split("/")[1].startswith(("blue", "purple")) for v in result["victims"])


def test_it_loads_in_one_click(owner_client: Any, owner: Any) -> None:
    response = owner_client.post("/snapshots/demo/")
    snapshot = models.Snapshot.objects.get(owner=owner)
    assert response.status_code == 302
    assert response["Location"] == f"/snapshots/{snapshot.pk}/"
    assert snapshot.is_ready
    assert (snapshot.node_count, snapshot.pod_count, snapshot.pdb_count) == (5, 22, 4)


def test_it_offers_the_button_on_the_snapshot_list(owner_client: Any) -> None:
    body = owner_client.get("/snapshots/").content.decode()
    assert 'action="/snapshots/demo/"' in body


def test_the_command_loads_it_once_with_if_empty(owner: Any) -> None:
    out = StringIO()
    call_command("load_demo", "--owner", "owner", "--if-empty", stdout=out)
    call_command("load_demo", "--owner", "owner", "--if-empty", stdout=out)
    assert models.Snapshot.objects.count() == 1
    assert "not loaded" in out.getvalue()


def test_the_stored_objects_reload_into_the_engine(demo: Any) -> None:
    objects = selectors.snapshot_objects(snapshot=demo)
    cluster = load_cluster(objects)
    assert len(cluster.pods) == 22 and len(cluster.nodes) == 5
