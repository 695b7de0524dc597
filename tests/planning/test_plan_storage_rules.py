"""The Plan tab shows the audit's two storage rules in their words, on a snapshot with
volumes: a pending writer whose ReadWriteOncePod claim a lower-priority pod holds, and a
StatefulSet replica whose volume's zone has no other node with room for it."""

from __future__ import annotations

import html
from typing import Any

import pytest

from planning.services import plan_cache_clear
from scheduling.engine.plan import RULES
from tests.engine.builders import make_node, make_pod, make_priority_class
from tests.engine.plan.helpers import owned
from tests.scheduling.storage_scenario import (
    ZONE_A,
    ZONE_B,
    bound_claim,
    storage_class,
    stored_snapshot,
    with_claim,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rankings_eager")]


@pytest.fixture(autouse=True)
def _no_plans_kept() -> Any:
    plan_cache_clear()
    yield
    plan_cache_clear()


def _objects() -> list[dict[str, Any]]:
    ledger = bound_claim("ledger", ZONE_B)
    ledger[0]["spec"]["accessModes"] = ["ReadWriteOncePod"]
    return [
        make_priority_class("critical", 1000),
        make_priority_class("low", 10),
        storage_class(),
        make_node("a1").capacity(cpu="4", memory="8Gi", pods="110").zone(ZONE_A).obj(),
        make_node("a2").capacity(cpu="4", memory="8Gi", pods="110").zone(ZONE_A).obj(),
        make_node("b1").capacity(cpu="4", memory="8Gi", pods="110").zone(ZONE_B).obj(),
        *bound_claim("data-db-0", ZONE_A),
        *ledger,
        # db-0 lives on a1 with its volume in eu-west-1a; a2 is full of pods of its own
        # priority, which preemption cannot free.
        owned(
            with_claim(
                make_pod("db-0").node("a1").priority_class("critical").req(cpu="2").obj(),
                "data-db-0",
            ),
            "StatefulSet",
            "db",
        ),
        make_pod("filler").node("a2").priority_class("critical").req(cpu="4").obj(),
        with_claim(make_pod("old-writer").node("b1").priority_class("low").obj(), "ledger"),
        with_claim(make_pod("new-writer").priority_class("critical").obj(), "ledger"),
    ]


def test_the_plan_page_shows_both_storage_rules_in_their_words(
    owner: Any, owner_client: Any
) -> None:
    snapshot = stored_snapshot(owner, _objects())
    r = owner_client.get(f"/snapshots/{snapshot.pk}/plan/")
    assert r.status_code == 200
    page = html.unescape(r.content.decode())
    why = {rule.id: rule.why for rule in RULES}
    for rule_id, message in (
        (
            "rwop-held-by-lower-priority",
            "Pending pod default/new-writer (priority 1000) needs ReadWriteOncePod claim "
            "default/ledger, held by default/old-writer (priority 10) on node b1: it can only "
            "run there, by preempting the holder",
        ),
        (
            "stateful-zone-without-room",
            "StatefulSet default/db: 1 replica db-0 (data-db-0 in eu-west-1a) cannot come back "
            "if their node goes: no other node of their volume's zone has room for them, even "
            "by preempting every lower-priority pod",
        ),
    ):
        assert f'data-rule="{rule_id}"' in page, rule_id
        assert f'<code class="rule">{rule_id}</code>' in page
        assert f'<p class="message">{message}</p>' in page
        assert f'<p class="why hint">{why[rule_id]}</p>' in page
    assert "<code>PersistentVolumeClaim default/ledger</code>" in page
