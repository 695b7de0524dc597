"""The Plan tab, GET /api/snapshots/{id}/plan/ and manage.py plan, on the demo snapshot
(clusters/demo.py: cat-1 = 10000 the globalDefault, used by blue and purple, 4 replicas
each; cat-2 = 20000 by green and red, 3 each; cat-3 = 30000 defined and unused;
cluster-service = 1000000 for the ingress controller)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from clusters.demo import demo_objects
from clusters.models import Snapshot
from planning.services import plan_cache_clear
from scheduling.engine.plan import RULE_IDS
from scheduling.reports import gates

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rankings_eager")]


@pytest.fixture(autouse=True)
def _no_plans_kept() -> Any:
    plan_cache_clear()
    yield
    plan_cache_clear()


def _demo_pods_by_class() -> Counter[str]:
    return Counter(
        o["spec"].get("priorityClassName")
        for o in demo_objects()["items"]
        if o["kind"] == "Pod" and o.get("status", {}).get("phase") not in ("Succeeded", "Failed")
    )


def _url(snapshot: Any) -> str:
    return f"/api/snapshots/{snapshot.pk}/plan/"


def test_the_plan_lists_every_class_with_its_pods_and_the_audit(
    api: APIClient, demo_snapshot: Any
) -> None:
    r = api.get(_url(demo_snapshot))
    assert r.status_code == 200, r.content
    body = r.json()
    rungs = {c["name"]: c for c in body["ladder"]}
    assert set(rungs) == {
        "cat-1",
        "cat-2",
        "cat-3",
        "cluster-service",
        "system-cluster-critical",
        "system-node-critical",
    }
    pods = _demo_pods_by_class()
    for name, rung in rungs.items():
        assert rung["pods"] == pods.get(name, 0), name
    assert rungs["cat-1"]["global_default"] and rungs["cat-1"]["value"] == 10_000
    assert rungs["cat-1"]["apps"] == 2 and rungs["cat-2"]["apps"] == 2
    # Every blue, purple, green and red replica has its PDB.
    assert rungs["cat-1"]["budgets"]["pods_covered"] == 8
    assert rungs["cat-2"]["budgets"]["pods_covered"] == 6
    rules = [f["rule"] for f in body["findings"]]
    assert set(rules) <= set(RULE_IDS)
    # Findings come in the rules' order.
    assert [RULE_IDS.index(r) for r in rules] == sorted(RULE_IDS.index(r) for r in rules)
    assert body["summary"] == {
        **{
            s: sum(1 for f in body["findings"] if f["severity"] == s)
            for s in ("error", "warning", "info")
        },
        "operator_owned": sum(1 for f in body["findings"] if f["operator_owned"]),
    }
    # The demo has a globalDefault, the lowest user class: no finding says otherwise.
    assert "no-global-default" not in rules and "global-default-not-lowest" not in rules
    unused = [f for f in body["findings"] if f["rule"] == "unused-class"]
    assert any("PriorityClass cat-3" in f["objects"] for f in unused)


def test_marking_a_class_critical_is_echoed_and_checked(api: APIClient, demo_snapshot: Any) -> None:
    r = api.get(_url(demo_snapshot), {"critical": "cat-1,cat-2"})
    assert r.status_code == 200, r.content
    assert r.json()["critical_classes"] == ["cat-1", "cat-2"]
    # The ingress controller (cluster-service) has no PDB, but it is not marked critical.
    assert not [
        f
        for f in r.json()["findings"]
        if f["rule"] == "critical-app-without-pdb" and any("ingress" in o for o in f["objects"])
    ]
    typo = api.get(_url(demo_snapshot), {"critical": "cat-9"})
    assert typo.status_code == 400
    assert "cat-9" in typo.json()["critical"][0]


def test_anyone_else_s_snapshot_is_a_404_and_an_unready_one_a_409(
    api: APIClient, demo_snapshot: Any, stranger: Any
) -> None:
    other = APIClient()
    other.force_authenticate(stranger)
    assert other.get(_url(demo_snapshot)).status_code == 404
    Snapshot.objects.filter(pk=demo_snapshot.pk).update(status="ingesting")
    r = api.get(_url(demo_snapshot))
    assert r.status_code == 409
    assert "ingesting" in r.json()["detail"]


def test_a_priority_is_written_one_way_on_every_page(owner_client: Any, demo_snapshot: Any) -> None:
    """kubectl's plain integer, as `kubectl get priorityclasses` prints VALUE: the plan's
    ladder and the snapshot's PriorityClasses table agree on it."""
    pages = [
        owner_client.get(f"/snapshots/{demo_snapshot.pk}/{tail}").content.decode()
        for tail in ("", "plan/")
    ]
    for html in pages:
        assert ">2000000000<" in html and ">30000<" in html
        assert "2,000,000,000" not in html and "30,000" not in html


def test_the_plan_tab_shows_the_ladder_the_sentence_and_the_findings(
    owner_client: Any, demo_snapshot: Any
) -> None:
    r = owner_client.get(f"/snapshots/{demo_snapshot.pk}/plan/")
    assert r.status_code == 200
    html = r.content.decode()
    assert 'id="ladder-svg"' in html and 'id="plan-tab"' in html
    assert "The audit found" in html
    assert 'data-rule="unused-class"' in html
    # Filtered to the notes only: no warning is listed.
    notes = owner_client.get(f"/snapshots/{demo_snapshot.pk}/plan/", {"severity": "info"})
    assert 'article class="finding severity-warning' not in notes.content.decode()
    assert 'article class="finding severity-info' in notes.content.decode()


def _demo_file(tmp_path: Path) -> str:
    path = tmp_path / "demo.json"
    path.write_bytes(orjson.dumps(demo_objects()))
    return str(path)


def test_manage_py_plan_prints_the_plan_and_fails_on_what_it_is_asked_to(
    tmp_path: Path, capsys: Any
) -> None:
    snapshot = _demo_file(tmp_path)
    call_command("plan", snapshot, "--format", "json", "--fail-on", "never")
    body = json.loads(capsys.readouterr().out)
    assert {c["name"] for c in body["ladder"]} >= {"cat-1", "cat-2", "cat-3"}
    # cat-3 is unused: a note at least, so --fail-on info trips.
    with pytest.raises(CommandError) as raised:
        call_command("plan", snapshot, "--fail-on", "info")
    assert raised.value.returncode == gates.GATE_FAILED
    assert any(str(raised.value).startswith(f"{rule} (") for rule in RULE_IDS)
    assert capsys.readouterr().out.startswith("PriorityClass ladder, highest first:")
    call_command("plan", snapshot, "--format", "markdown", "--fail-on", "never")
    out = capsys.readouterr().out
    assert out.startswith("### Priority plan of `demo.json`")
    assert "| `cat-3` | 30000 |" in out
    with pytest.raises(CommandError) as bad:
        call_command("plan", snapshot, "--critical", "cat-9")
    assert bad.value.returncode == gates.BAD_INPUT


def test_an_uploaded_quota_scoped_to_a_class_shows_on_its_rung(api: APIClient, owner: Any) -> None:
    from clusters.services import UploadedFile, snapshot_create

    dump = demo_objects()
    dump["items"].append(
        {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": {"name": "cat-2-pods", "namespace": "default"},
            "spec": {
                "hard": {"pods": "6"},
                "scopeSelector": {
                    "matchExpressions": [
                        {"scopeName": "PriorityClass", "operator": "In", "values": ["cat-2"]}
                    ]
                },
            },
        }
    )
    snapshot = snapshot_create(
        owner=owner,
        name="with a quota",
        files=[UploadedFile(name="snap.json", data=orjson.dumps(dump))],
        run_async=False,
    )
    assert snapshot.is_ready, snapshot.error
    assert "ResourceQuota" not in (snapshot.skipped or {})
    rungs = {c["name"]: c for c in api.get(_url(snapshot)).json()["ladder"]}
    assert rungs["cat-2"]["quotas"] == ["ResourceQuota default/cat-2-pods"]
    assert rungs["cat-1"]["quotas"] == []


def test_a_page_of_findings_asked_by_htmx_is_the_findings_section_alone(
    owner_client: Any, demo_snapshot: Any
) -> None:
    r = owner_client.get(
        f"/snapshots/{demo_snapshot.pk}/plan/",
        {"page": 1},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="findings",
    )
    html = r.content.decode()
    assert r.status_code == 200
    assert html.lstrip().startswith('<section class="card" id="findings">')
    assert "ladder-svg" not in html and 'data-rule="unused-class"' in html
