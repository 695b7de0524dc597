"""The drift between two snapshots of one cluster: a class added, a PDB at 0, a new
error and a real preemption, named in the sentence, the API and the page."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest
from rest_framework.test import APIClient

from clusters.services import snapshot_load_demo
from connected.drift import ClassFacts, FindingFacts, Side, drift, since_words
from connected.history.models import ObservedPreemption
from connected.history.services import cluster_drift, digest_snapshot
from connected.preemptions import Preemption
from planning.models import FirstInLineRanking
from tests.clusters.builders import small_cluster
from tests.connected.history_builders import MONDAY, TUESDAY, cluster_snapshot


def side(classes: dict[str, int], pdbs: dict[str, int], nodes: set[str], **kw: Any) -> Side:
    return Side(
        taken_at=kw.pop("taken_at", MONDAY),
        classes={n: ClassFacts(n, v, "PreemptLowerPriority", False) for n, v in classes.items()},
        findings=kw.pop("findings", []),
        pdbs=pdbs,
        nodes=frozenset(nodes),
        **kw,
    )


def test_the_sentence_names_the_class_its_place_the_error_the_pdb_and_the_preemptions() -> None:
    error = FindingFacts(
        "missing-class", "error", "Pods name a deleted class", ("Pod shop/api", "Pod shop/b")
    )
    before = side({"cat-1": 10_000, "cat-2": 20_000}, {"shop/api-pdb": 1}, {"n1", "n2"})
    after = side(
        {"cat-1": 10_000, "cat-2": 20_000, "batch-high": 25_000},
        {"shop/api-pdb": 0},
        {"n1", "n3"},
        taken_at=TUESDAY,
        findings=[error],
    )
    hit = Preemption("a/v", "u1", "b/p", "u2", "n1", TUESDAY, "cat-1", 10_000)
    d = drift(before, after, [hit, hit, hit])
    assert d.sentence == (
        "Since Monday: class batch-high added above cat-2; 1 new error: missing-class on shop/api, "
        "shop/b; "
        "1 PDB now allowing no disruption: shop/api-pdb; 1 node added; 1 node removed; "
        "3 pods preempted."
    )
    body = d.to_dict()
    assert [c["name"] for c in body["classes"]["added"]] == ["batch-high"]
    assert body["pdbs_at_zero"] == [{"pdb": "shop/api-pdb", "from": 1, "to": 0}]
    assert body["nodes"] == {"added": ["n3"], "removed": ["n2"]}
    assert body["preemptions"][0] == {
        "id": None,
        "victim": "a/v",
        "preemptor": "b/p",
        "node": "n1",
        "at": TUESDAY.isoformat(),
        "victim_class": "cat-1",
    }
    assert set(body) == {
        "sentence",
        "classes",
        "findings",
        "pdbs_at_zero",
        "first_in_line_moves",
        "nodes",
        "preemptions",
    }


def test_a_finding_with_the_same_rule_and_objects_is_the_same_one_and_a_changed_class_is_said() -> (
    None
):
    f = FindingFacts("missing-class", "error", "one wording", ("Pod a/b",))
    g = FindingFacts("missing-class", "error", "another wording", ("Pod a/b",))
    before = side({"x": 1}, {"a/p": 0}, set(), findings=[f])
    after = side({"x": 2}, {"a/p": 0}, set(), findings=[g], taken_at=MONDAY)
    d = drift(before, after)
    assert d.findings_new == [] and d.findings_resolved == []
    assert d.pdbs_at_zero == []  # it was at 0 already
    assert d.sentence == "Since 09:00: class x changed (value 1 → 2)."


def test_first_in_line_moves_and_nothing_changed() -> None:
    before = side({}, {}, set(), first_in_line=["a/web", "b/db"])
    after = side({}, {}, set(), first_in_line=["b/db", "a/web", "c/new"], taken_at=TUESDAY)
    moves = drift(before, after).first_in_line_moves
    assert moves == [
        {"app": "b/db", "from": 2, "to": 1},
        {"app": "a/web", "from": 1, "to": 2},
        {"app": "c/new", "from": None, "to": 3},
    ]
    assert "b/db now first in line (3 apps moved)" in drift(before, after).sentence
    assert drift(before, before).sentence == "Since 09:00: nothing changed."
    assert since_words(datetime(2026, 10, 1, tzinfo=UTC), TUESDAY) == "Since 1 Oct 2026"


@pytest.mark.django_db
def test_the_drift_of_two_built_snapshots_names_the_class_the_finding_and_the_preemption(
    two_snapshots: Any,
) -> None:
    before, after = two_snapshots
    body = cluster_drift(before, after).drift.to_dict()
    assert [c["name"] for c in body["classes"]["added"]] == ["batch-high"]
    new = {(f["rule"], f["severity"], tuple(f["objects"])) for f in body["findings"]["new"]}
    assert ("missing-class", "error", ("PriorityClass gone", "Pod shop/api")) in new, new
    assert body["pdbs_at_zero"] == [{"pdb": "default/web-pdb", "from": 1, "to": 0}]
    recorded = ObservedPreemption.objects.get(victim="default/web-2")
    assert body["preemptions"] == [
        {
            "id": recorded.pk,  # what .../preemptions/{id}/explain/ takes
            "victim": "default/web-2",
            "preemptor": "batch/urgent-1",
            "node": "node-b",
            "at": "2026-11-24T08:40:00+00:00",
            "victim_class": "low",  # web-2 names none: admission gave it the globalDefault
        }
    ]
    sentence = body["sentence"]
    assert sentence.startswith("Since Monday: class batch-high added above low;"), sentence
    assert "1 new error: missing-class on gone, shop/api;" in sentence
    assert "default/web-pdb" in sentence
    assert sentence.endswith("1 pod preempted.")
    # Each snapshot's first-in-line ranking under the default probe was queued for a worker.
    queued = FirstInLineRanking.objects.filter(snapshot__in=[before, after])
    assert sorted(queued.values_list("snapshot_id", "limit")) == [(before.pk, 50), (after.pk, 50)]


@pytest.mark.django_db
def test_the_drift_api_defaults_to_the_latest_against_the_one_before(
    two_snapshots: Any, owner: Any, stranger: Any
) -> None:
    before, after = two_snapshots
    api = APIClient()
    api.force_authenticate(owner)
    cluster_id = after.cluster_id
    got = api.get(f"/api/clusters/{cluster_id}/drift/")
    assert got.status_code == 200, got.content
    assert (got.data["from"], got.data["to"]) == (before.pk, after.pk)
    assert "batch-high" in got.data["sentence"]
    backwards = api.get(f"/api/clusters/{cluster_id}/drift/?from={after.pk}&to={before.pk}")
    assert backwards.status_code == 400
    assert api.get(f"/api/clusters/{cluster_id}/drift/?from=x").status_code == 400
    api.force_authenticate(stranger)
    assert api.get(f"/api/clusters/{cluster_id}/drift/").status_code == 404


@pytest.mark.django_db
def test_the_drift_page_and_the_history_page_render(two_snapshots: Any, owner_client: Any) -> None:
    _, after = two_snapshots
    page = owner_client.get(f"/clusters/{after.cluster_id}/drift/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "class batch-high added above low" in html
    assert "default/web-pdb" in html and "missing-class" in html
    history = owner_client.get(f"/clusters/{after.cluster_id}/").content.decode()
    # Names wrap after their dots and slashes (<wbr>, spans): read the page's text too.
    text = re.sub(r"<[^>]+>", "", history)
    assert "default/web-2" in text and "batch/urgent-1" in text
    assert history.count("<svg") >= 3


@pytest.mark.django_db
def test_one_snapshot_or_a_foreign_one_is_said_not_a_500(
    cluster: Any, owner: Any, owner_client: Any, no_first_in_line: Any
) -> None:

    demo = snapshot_load_demo(owner=owner)
    only = cluster_snapshot(cluster, small_cluster(), MONDAY)
    page = owner_client.get(f"/clusters/{cluster.pk}/drift/")
    assert page.status_code == 400
    assert b"has one snapshot so far" in page.content
    # Another snapshot of the owner's, not of this cluster, is no side of its drift.
    other = owner_client.get(f"/clusters/{cluster.pk}/drift/?from={demo.pk}&to={only.pk}")
    assert other.status_code == 400
    assert f"snapshot {demo.pk} is no ready snapshot of prod".encode() in other.content


@pytest.mark.django_db
def test_a_preemption_outlives_the_snapshot_that_recorded_it(two_snapshots: Any) -> None:

    _, after = two_snapshots
    digest_snapshot(after)
    after.delete()
    (row,) = ObservedPreemption.objects.all()
    assert row.snapshot is None and row.victim == "default/web-2"
