"""The Plan tab on a cluster without classes of its own (tests/fixtures/eks_like.py: the
two built-in classes only, for aws-node, kube-proxy and coredns): the critical-tiers box
offers the built-in classes its pods use and says why, instead of standing empty."""

from __future__ import annotations

import re
from typing import Any

import pytest

from planning.services import plan_cache_clear
from tests.fixtures.eks_like import eks_like
from tests.scheduling.conftest import make_snapshot

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rankings_eager")]


@pytest.fixture(autouse=True)
def _no_plans_kept() -> Any:
    plan_cache_clear()
    yield
    plan_cache_clear()


def _box(html: str) -> str:
    start = html.index('id="critical-form"')
    return html[start : html.index("</form>", start)]


def test_the_critical_box_offers_the_built_in_classes_and_says_why(
    owner_client: Any, owner: Any
) -> None:
    snapshot = make_snapshot(owner, eks_like(), name="eks")
    box = _box(owner_client.get(f"/snapshots/{snapshot.pk}/plan/").content.decode())
    assert "This cluster has no PriorityClass of its own" in box
    # Four nodes: aws-node and kube-proxy on each (8 pods), two coredns.
    choices = re.findall(r'name="critical" value="([^"]+)"> ([^<]+)</label>', box)
    assert choices == [
        ("system-node-critical", "system-node-critical (2000001000, 8 pods)"),
        ("system-cluster-critical", "system-cluster-critical (2000000000, 2 pods)"),
    ]
    assert "Audit again" in box
    # Marked, the audit checks the add-ons' apps for a budget: coredns has none here.
    html = owner_client.get(
        f"/snapshots/{snapshot.pk}/plan/?critical=system-cluster-critical"
    ).content.decode()
    assert 'value="system-cluster-critical" checked' in _box(html)
    assert "Deployment kube-system/coredns" in html[html.index('id="findings"') :]


def test_a_cluster_with_classes_of_its_own_offers_those(owner_client: Any, owner: Any) -> None:
    items = [
        *eks_like(),
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "business"},
            "value": 1000,
        },
    ]
    snapshot = make_snapshot(owner, items, name="eks-classes")
    box = _box(owner_client.get(f"/snapshots/{snapshot.pk}/plan/").content.decode())
    assert "no PriorityClass of its own" not in box
    assert re.findall(r'name="critical" value="([^"]+)"', box) == ["business"]


def test_nothing_to_mark_is_said_plainly(owner_client: Any, owner: Any) -> None:
    # No pod names a class at all: nothing to offer, and the box says so.
    items = [o for o in eks_like() if o["metadata"].get("namespace") != "kube-system"]
    snapshot = make_snapshot(owner, items, name="bare")
    box = _box(owner_client.get(f"/snapshots/{snapshot.pk}/plan/").content.decode())
    assert "there is nothing to mark" in box
    assert 'name="critical"' not in box and "Audit again" not in box
