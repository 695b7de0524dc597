"""GET /api/clusters/{id}/preemptions/: the recorded preemptions with the ids Explain
takes, paginated, filtered by the victim's class and by time, the owner's only."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from rest_framework.test import APIClient

from connected.history.models import ObservedPreemption
from connected.history.services import digest_snapshot


@pytest.mark.django_db
def test_it_lists_the_recorded_preemption_with_an_id_explain_accepts(
    two_snapshots: Any, owner: Any, stranger: Any
) -> None:
    _, after = two_snapshots
    digest_snapshot(after)
    row = ObservedPreemption.objects.get(cluster_id=after.cluster_id)
    api = APIClient()
    api.force_authenticate(owner)
    url = f"/api/clusters/{after.cluster_id}/preemptions/"
    got = api.get(url)
    assert got.status_code == 200, got.content
    assert got.data["count"] == 1
    (item,) = got.data["results"]
    assert item["id"] == row.pk
    assert (item["victim"], item["preemptor"], item["node"]) == (
        row.victim,
        row.preemptor or row.preemptor_uid,
        row.node,
    )
    assert item["victim_class"] == row.victim_class
    assert item["explanation"] is None
    with mock.patch("scheduling.tasks.analysis_run_task.delay"):
        explained = api.post(item["explain_url"])
    assert explained.status_code == 202, explained.content
    assert explained.data["url"] == f"/api/analyses/{explained.data['id']}/"
    again = api.get(url).data["results"][0]
    assert again["explanation"] == explained.data["url"]


@pytest.mark.django_db
def test_it_filters_by_victim_class_and_time_and_is_the_owners_only(
    two_snapshots: Any, owner: Any, stranger: Any
) -> None:
    _, after = two_snapshots
    digest_snapshot(after)
    row = ObservedPreemption.objects.get(cluster_id=after.cluster_id)
    assert row.at is not None and row.victim_class
    api = APIClient()
    api.force_authenticate(owner)
    url = f"/api/clusters/{after.cluster_id}/preemptions/"

    def count(**params: str) -> int:
        got = api.get(url, params)
        assert got.status_code == 200, got.content
        return int(got.data["count"])

    assert count(victim_class=row.victim_class) == 1
    assert count(victim_class="someone-else") == 0
    at = row.at.isoformat()
    assert count(since=at) == 1 and count(until=at) == 1
    later = row.at.replace(year=row.at.year + 1).isoformat()
    assert count(since=later) == 0
    assert api.get(url, {"since": "yesterday"}).status_code == 400
    api.force_authenticate(stranger)
    assert api.get(url).status_code == 404
