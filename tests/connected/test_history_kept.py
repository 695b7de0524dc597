"""History keeps what people are using: retention never deletes a pinned snapshot, nor one
holding an analysis, advice or live share link younger than
PREEMPTLAB_RETENTION_IN_USE_DAYS, and `keep` counts only the others. An Explain verdict
outlives its what-if; Explain on a preemption whose snapshot before was deleted says so,
and when."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone
from rest_framework.test import APIClient

from clusters.demo import demo_cat3_pod, demo_objects
from clusters.models import Snapshot
from connected.explain import verdict
from connected.history.models import DeletedSnapshot, ObservedPreemption
from connected.history.services import digest_snapshot
from connected.models import Cluster
from connected.services import cluster_retention_apply, cluster_snapshot_take, in_use
from scheduling import services
from scheduling.models import Analysis, ShareLink
from tests.connected.history_builders import MONDAY, TUESDAY, cluster_snapshot, preempted_event
from tests.connected.test_member_rights import paused_queue  # noqa: F401
from tests.connected.test_preemptions import _demo_after

pytestmark = pytest.mark.django_db


def _api(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_keep_2_and_5_reads_keep_the_analysed_and_the_pinned_snapshot(
    served: Path,
    demo_cluster: Cluster,
    owner: Any,
    teammate: Any,
    client: Any,
    paused_queue: str,  # noqa: F811
    settings: Any,
) -> None:
    Cluster.objects.filter(pk=demo_cluster.pk).update(keep=2)

    def take() -> Snapshot:
        snapshot = cluster_snapshot_take(cluster_id=demo_cluster.pk)
        assert snapshot is not None
        return snapshot

    first = take()
    asked = _api(teammate).post(
        f"/api/snapshots/{first.pk}/analyses/", {"pod": demo_cat3_pod()}, format="json"
    )
    assert asked.status_code == 202, asked.content
    second = take()
    assert _api(owner).post(f"/api/snapshots/{second.pk}/pin/").status_code == 200
    third, fourth, fifth = take(), take(), take()

    left = set(Snapshot.objects.filter(cluster=demo_cluster).values_list("pk", flat=True))
    # The analysed and the pinned one, and of the others the newest two.
    assert left == {first.pk, second.pk, fourth.pk, fifth.pk}
    gone = DeletedSnapshot.objects.get(snapshot_id=third.pk)
    assert gone.by_retention and gone.cluster_id == demo_cluster.pk
    answer = _api(teammate).get(f"/api/analyses/{asked.json()['id']}/")
    assert answer.status_code == 200 and answer.json()["status"] == "queued"

    # The cluster page lists the pinned one.
    client.force_login(teammate)
    page = client.get(f"/clusters/{demo_cluster.pk}/").content.decode()
    assert f'id="pinned-{second.pk}"' in page and f'id="pinned-{first.pk}"' not in page

    # Work older than the setting no longer holds its snapshot; a pin holds it still.
    settings.PREEMPTLAB_RETENTION_IN_USE_DAYS = 0
    demo_cluster.refresh_from_db()
    assert cluster_retention_apply(cluster=demo_cluster) == [first.pk]
    assert _api(teammate).get(f"/api/analyses/{asked.json()['id']}/").status_code == 404
    assert Snapshot.objects.filter(pk=second.pk).exists()


def test_a_live_share_link_holds_its_snapshot_a_revoked_one_does_not(
    cluster: Cluster, no_broker: Any, no_first_in_line: Any, settings: Any
) -> None:
    settings.PREEMPTLAB_RETENTION_IN_USE_DAYS = 30
    snapshot = cluster_snapshot(cluster, demo_objects()["items"], MONDAY)
    analysis = services.analysis_create(snapshot=snapshot, pod=demo_cat3_pod())
    long_ago = timezone.now() - timedelta(days=40)
    Analysis.objects.filter(pk=analysis.pk).update(created=long_ago)
    snapshots = Snapshot.objects.filter(pk=snapshot.pk)
    assert in_use(snapshots, now=timezone.now()) == set()  # an old analysis holds nothing
    link = services.share_link_create(analysis=analysis)
    assert in_use(snapshots, now=timezone.now()) == {snapshot.pk}
    services.share_link_revoke(share_link=link)
    assert in_use(snapshots, now=timezone.now()) == set()
    ShareLink.objects.filter(pk=link.pk).update(revoked_at=None, created=long_ago)
    assert in_use(snapshots, now=timezone.now()) == set()  # live, but older than the age


def test_an_explain_verdict_outlives_its_snapshot_and_a_deleted_one_is_said(
    cluster: Cluster,
    owner: Any,
    teammate: Any,
    stranger: Any,
    client: Any,
    no_broker: Any,
    no_first_in_line: Any,
) -> None:
    team = Group.objects.get(name="platform")
    Cluster.objects.filter(pk=cluster.pk).update(team=team, keep=1)
    cluster.refresh_from_db()
    before = cluster_snapshot(cluster, demo_objects()["items"], MONDAY, team=team)
    asked = services.analysis_run(
        analysis_id=services.analysis_create(snapshot=before, pod=demo_cat3_pod()).pk
    )
    (victim,) = asked.result["victims"]
    namespace, name = victim.split("/")
    event = preempted_event(victim=name, uid="", node="node-5")
    event["message"] = "Preempted by pod uid-orange on node node-5"
    event["involved"]["namespace"] = namespace
    after = cluster_snapshot(cluster, _demo_after(victim), TUESDAY, events=[event], team=team)
    digest_snapshot(after)
    row = ObservedPreemption.objects.get(cluster=cluster)

    # A member explains: the what-if is theirs, counted against them.
    url = f"/api/clusters/{cluster.pk}/preemptions/{row.pk}/explain/"
    explained = _api(teammate).post(url)
    assert explained.status_code == 202, explained.content
    analysis = Analysis.objects.get(pk=explained.json()["id"])
    assert analysis.requested_by == teammate and analysis.snapshot_id == before.pk
    row.refresh_from_db()
    assert row.explained_by == teammate
    services.analysis_run(analysis_id=analysis.pk)
    said = verdict(ObservedPreemption.objects.get(pk=row.pk)).said
    assert said.startswith("The engine agrees")

    # Two months on, the what-if is past the age (and Monday past the daily ones):
    # retention deletes the snapshot before, and its what-if with it.
    later = timezone.now() + timedelta(days=60)
    assert cluster_retention_apply(cluster=cluster, now=later) == [before.pk]
    assert not Analysis.objects.filter(pk=analysis.pk).exists()
    row.refresh_from_db()
    assert row.explanation is None and verdict(row).said == said and verdict(row).matches
    client.force_login(teammate)
    page = client.get(f"/clusters/{cluster.pk}/").content.decode()
    assert said in page and "the what-if was deleted with its snapshot" in page
    again = _api(teammate).post(url)
    assert again.status_code == 409 and said in again.json()["detail"]
    listed = _api(teammate).get(f"/api/clusters/{cluster.pk}/preemptions/")
    assert listed.status_code == 200
    (body,) = listed.json()["results"]
    assert body["id"] == row.pk and body["explanation"] is None
    assert body["explained_by"] == "teammate"
    assert body["verdict"] == {"matches": True, "said": said, "differences": [], "kept": True}
    assert _api(stranger).get(f"/api/clusters/{cluster.pk}/preemptions/").status_code == 404
    bad = _api(teammate).get(f"/api/clusters/{cluster.pk}/preemptions/?since=x")
    assert bad.status_code == 400 and "since" in bad.json()

    # Another preemption before the deleted snapshot's successor: said deleted, and when.
    other = ObservedPreemption.objects.create(
        cluster=cluster,
        snapshot=after,
        victim="default/other",
        preemptor="default/orange-0",
        preemptor_uid="uid-other",
        node="node-5",
        at=TUESDAY - timedelta(minutes=30),
    )
    refused = _api(teammate).post(f"/api/clusters/{cluster.pk}/preemptions/{other.pk}/explain/")
    assert refused.status_code == 409
    detail = refused.json()["detail"]
    deleted = DeletedSnapshot.objects.get(snapshot_id=before.pk)
    assert "was deleted by the cluster's retention on" in detail
    assert f"{timezone.localtime(deleted.deleted_at):%Y-%m-%d %H:%M}" in detail
    assert "No snapshot of the cluster was taken" not in detail


def test_a_snapshot_a_user_deletes_is_recorded_too(
    cluster: Cluster, owner: Any, no_broker: Any, no_first_in_line: Any
) -> None:
    snapshot = cluster_snapshot(cluster, demo_objects()["items"], MONDAY)
    assert _api(owner).delete(f"/api/snapshots/{snapshot.pk}/").status_code == 204
    gone = DeletedSnapshot.objects.get(snapshot_id=snapshot.pk)
    assert not gone.by_retention and gone.taken_at == MONDAY
