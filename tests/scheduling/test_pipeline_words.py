"""Words the pages say: a member's refused delete says who may, the advice's Apply page
says what the change then does in words (not "the what-if all-run"), and a preset
whose change lies in another profile says so."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from scheduling.engine import analyze, preset_config
from scheduling.scheduler_config import SchedulerChoice, SchedulerSource
from scheduling.scheduler_config.difference import difference_sentence
from tests.teams.conftest import member, team, team_snapshot  # noqa: F401

pytestmark = pytest.mark.django_db


def test_a_members_refused_delete_on_the_page_says_who_may(
    member: Any,  # noqa: F811
    team_snapshot: Any,  # noqa: F811
) -> None:
    page = Client()
    page.force_login(member)
    r = page.post(f"/snapshots/{team_snapshot.pk}/delete/")
    assert r.status_code == 403
    body = r.content.decode()
    assert f"Only its owner ({team_snapshot.owner.get_username()})" in body
    assert "an admin of the team" in body
    assert "Your account may not do this" not in body


def test_a_preset_that_changes_another_profile_says_so() -> None:
    nodes = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": n, "labels": {"kubernetes.io/hostname": n}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
        }
        for n in ("n1", "n2")
    ]
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
    }
    config = preset_config("gardener-bin-packing")
    choice = SchedulerChoice(None, SchedulerSource.ANALYSIS, "gardener-bin-packing")
    ours = analyze(nodes, pod, scheduler_config=config).explanation
    default = analyze(nodes, pod).explanation
    said = difference_sentence(choice, ours, default)
    assert said.startswith("The default profile gives the same answer.")
    assert "bin-packing-scheduler" in said and "these pods name default-scheduler" in said
