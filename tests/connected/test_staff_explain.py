"""Staff see every cluster's preemptions, but Explain runs in the cluster owner's name:
staff outside the cluster's team are refused (403 with who may), nothing is created; the
owner and a team member ask it."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group
from rest_framework.test import APIClient

from connected.history.models import ObservedPreemption
from connected.history.services import digest_snapshot
from scheduling.models import Analysis
from tests.clusters.builders import small_cluster
from tests.connected.history_builders import (
    MONDAY,
    TUESDAY,
    cluster_snapshot,
    later_objects,
    preempted_event,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def preemption(cluster: Any, no_first_in_line: Any) -> ObservedPreemption:
    cluster.team = Group.objects.get_or_create(name="platform")[0]
    cluster.save()
    cluster_snapshot(cluster, small_cluster(), MONDAY)
    after = cluster_snapshot(cluster, later_objects(), TUESDAY, events=[preempted_event()])
    digest_snapshot(after)
    return ObservedPreemption.objects.get(cluster=cluster)


def _explain(user: Any, row: ObservedPreemption) -> Any:
    api = APIClient()
    api.force_authenticate(user)
    return api.post(f"/api/clusters/{row.cluster_id}/preemptions/{row.pk}/explain/")


def test_staff_outside_the_team_read_but_do_not_explain(
    preemption: ObservedPreemption, staff: Any, client: Any, no_broker: Any
) -> None:
    refused = _explain(staff, preemption)
    assert refused.status_code == 403
    assert "only the cluster's owner and its team's members" in refused.json()["detail"]
    client.force_login(staff)
    page = client.post(
        f"/clusters/{preemption.cluster_id}/preemptions/{preemption.pk}/explain/", follow=True
    )
    assert page.status_code == 200 and b"only the cluster&#x27;s owner" in page.content
    assert not Analysis.objects.exists()
    # Staff still read the cluster and its drift.
    assert client.get(f"/clusters/{preemption.cluster_id}/").status_code == 200


def test_a_team_member_explains(
    preemption: ObservedPreemption, teammate: Any, no_broker: Any
) -> None:
    asked = _explain(teammate, preemption)
    assert asked.status_code == 202, asked.content
    assert Analysis.objects.filter(pk=asked.json()["id"]).exists()
