"""The plan of a real OpenShift dump (tests/fixtures/realworld/ocp-aws): the findings
about the platform's own DaemonSets are notes saying the operators own them, in the
API's answer, on the Plan tab and in manage.py plan's text; the one warning left is the
user's (no-global-default)."""

from __future__ import annotations

import gzip
import json
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from planning.services import plan_cache_clear
from scheduling.engine.plan.owned import OWNED_ADVICE
from scheduling.reports import gates
from tests.scheduling.conftest import make_snapshot

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rankings_eager")]

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "realworld" / "ocp-aws"


@pytest.fixture(autouse=True)
def _no_plans_kept() -> Any:
    plan_cache_clear()
    yield
    plan_cache_clear()


def _items() -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = json.loads(
        gzip.decompress((REAL / "snapshot.json.gz").read_bytes())
    )["items"]
    return items


def test_the_api_counts_them_as_notes_of_the_operators(api: APIClient, owner: Any) -> None:
    snapshot = make_snapshot(owner, _items(), name="ocp-aws")
    body = api.get(f"/api/snapshots/{snapshot.pk}/plan/", {"first_in_line": "0"}).json()
    assert body["summary"] == {"error": 0, "warning": 1, "info": 6, "operator_owned": 6}
    owned = [f for f in body["findings"] if f["operator_owned"]]
    assert len(owned) == 6
    assert {f["rule"] for f in owned} == {"daemonset-below-neighbours"}
    assert all(f["severity"] == "info" and f["fix"] == "" for f in owned)
    assert all(f["operator_owned"].endswith(OWNED_ADVICE + ".") for f in owned)
    # The user's own warning first.
    assert body["findings"][0]["rule"] == "no-global-default"
    assert body["findings"][0]["operator_owned"] is None


def test_the_plan_tab_says_who_owns_them_instead_of_a_fix(owner_client: Any, owner: Any) -> None:
    snapshot = make_snapshot(owner, _items(), name="ocp-aws")
    html = unescape(owner_client.get(f"/snapshots/{snapshot.pk}/plan/").content.decode())
    assert (
        "The audit found 1 warning and 6 notes on 3 PriorityClasses. All 6 notes are about "
        "objects the cluster's operators own, where an edit is reverted: raise them with the "
        "platform vendor or configure the operator."
    ) in html
    articles = html.split('<article class="finding ')[1:]
    owned = [a for a in articles if a.startswith("severity-info operator-owned")]
    assert len(owned) == 6
    for a in owned:
        body = a[: a.index("</article>")]
        assert "operator-owned</span>" in body and "data-owned" in body
        assert "The fix" not in body
    assert articles[0].startswith("severity-warning") and "The fix" in articles[0]


def test_manage_py_plan_says_it_and_gates_on_the_users_warning_only(
    tmp_path: Path, capsys: Any
) -> None:
    path = tmp_path / "ocp-aws.json"
    path.write_text(json.dumps({"kind": "List", "items": _items()}))
    call_command("plan", str(path), "--fail-on", "never")
    out = capsys.readouterr().out
    assert out.count("[info] daemonset-below-neighbours:") == 6
    assert out.count("  operator-owned: Owned by the cluster's operators (") == 6
    assert "[warning] daemonset-below-neighbours" not in out
    with pytest.raises(CommandError) as raised:
        call_command("plan", str(path), "--fail-on", "warning")
    assert raised.value.returncode == gates.GATE_FAILED
    assert str(raised.value).startswith("no-global-default (warning)")
