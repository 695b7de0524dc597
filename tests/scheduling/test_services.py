"""analysis_create validates and queues; analysis_run runs the engine once and stores its answer."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

from clusters.constants import SnapshotStatus
from clusters.demo import demo_objects
from scheduling import services
from scheduling.analyses import submission
from scheduling.constants import AnalysisStatus
from scheduling.engine import ENGINE_VERSION, analyze
from scheduling.models import Analysis
from scheduling.running import cluster_cache
from tests.verdict import without_verdict

pytestmark = pytest.mark.django_db

TWO_PODS = """
apiVersion: v1
kind: Pod
metadata: {name: a}
spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec: {containers: [{name: c}]}
"""


def test_it_queues_an_analysis_and_sends_the_task_after_commit(
    demo_snapshot: Any, cat3_pod: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    with (
        mock.patch("scheduling.tasks.analysis_run_task.delay") as delay,
        django_capture_on_commit_callbacks(execute=True) as callbacks,
    ):
        analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
        assert delay.call_count == 0  # not before the row is committed
    assert len(callbacks) == 1
    delay.assert_called_once_with(analysis.pk)
    analysis.refresh_from_db()
    assert analysis.status == AnalysisStatus.QUEUED
    assert analysis.pod_key == "default/orange-0"
    assert analysis.pod["spec"]["priorityClassName"] == "cat-3"


def test_it_reads_a_yaml_manifest() -> None:
    pod = submission.pod_from_manifest(
        text="apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: shop\n"
        "spec:\n  containers:\n  - name: c\n"
    )
    assert pod["metadata"] == {"name": "web", "namespace": "shop"}


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "Paste or upload"),
        (TWO_PODS, "holds 2 objects"),
        ("kind: Deployment\nmetadata: {name: d}\n", "holds a Deployment"),
        ('{"kind": "Pod", ', "invalid JSON"),
    ],
)
def test_it_rejects_a_manifest_that_is_not_one_pod(text: str, needle: str) -> None:
    with pytest.raises(submission.PodRejected) as err:
        submission.pod_from_manifest(text=text)
    assert needle in err.value.message
    assert err.value.field == "manifest"


def test_it_rejects_an_unknown_class_with_the_engines_message(
    demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    cat3_pod["spec"]["priorityClassName"] = "cat-9"
    with pytest.raises(submission.PodRejected) as err:
        services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    assert "no PriorityClass with name cat-9 was found" in err.value.message
    assert err.value.engine_field == "spec.priorityClassName"
    assert not Analysis.objects.exists()


def test_it_rejects_a_bad_quantity_naming_the_field(
    demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    cat3_pod["spec"]["containers"][0]["resources"]["requests"]["memory"] = "2 gigs"
    with pytest.raises(submission.PodRejected) as err:
        services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    assert err.value.engine_field == "spec.containers[0].resources.requests.memory"
    assert '"2 gigs"' in err.value.message


def test_it_refuses_a_snapshot_that_is_not_ready(
    demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    demo_snapshot.status = SnapshotStatus.FAILED
    demo_snapshot.save()
    with pytest.raises(submission.SnapshotNotReady):
        services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)


def test_it_stores_exactly_what_the_engine_answers(
    demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    analysis = services.analysis_run(analysis_id=analysis.pk)
    expected = analyze(demo_objects(), cat3_pod)
    assert analysis.status == AnalysisStatus.DONE
    assert analysis.result is not None
    assert without_verdict(analysis.result) == expected.to_dict()
    assert analysis.explained == expected.explanation
    assert analysis.explanation["schema_version"] == 2
    assert analysis.outcome == "preempts"
    assert analysis.engine_version == ENGINE_VERSION
    assert analysis.started_at is not None and analysis.finished_at is not None
    assert analysis.engine_seconds is not None and analysis.engine_seconds >= 0
    assert analysis.attempts == 1


def test_it_describes_the_chosen_node_and_its_victims(
    demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    analysis = services.analysis_run(analysis_id=analysis.pk)
    ex = analysis.explained
    assert ex is not None and ex.chosen_node is not None
    assert ex.chosen_node.node == ex.node
    assert [v.key for v in ex.victim_details] == ex.victims
    assert ex.chosen_node.pod_requests == {"cpu": 1000, "memory": 2 * 1024**3}
    victim = ex.victim_details[0]
    # The demo's cat-1 apps run 1 CPU / 2Gi Guaranteed pods owned by ReplicaSets,
    # each app guarded by a PDB named after it.
    assert victim.priority == 10000 and victim.priority_class == "cat-1"
    assert victim.qos_class == "Guaranteed"
    assert victim.requests == {"cpu": 1000, "memory": 2 * 1024**3}
    assert victim.owner is not None and victim.owner.startswith("ReplicaSet/")
    app = victim.name.split("-")[0]
    assert [p.pdb for p in victim.pdbs] == [f"default/{app}-pdb"]
    assert ex.chosen_node.allocatable["cpu"] == 3500


def test_the_chosen_node_totals_its_running_pods_before_and_after(
    demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    analysis = services.analysis_run(analysis_id=analysis.pk)
    ex = analysis.explained
    assert ex is not None and ex.chosen_node is not None
    view = ex.chosen_node
    cluster = services.snapshot_load(snapshot=demo_snapshot)[0]
    running = [
        p
        for p in cluster.pods
        if p.node_name == view.node and p.phase not in ("Succeeded", "Failed")
    ]
    want: dict[str, int] = {}
    for p in running:
        for k, v in p.requests.items():
            want[k] = want.get(k, 0) + v
    assert view.pod_count_before == len(running) > 0
    assert view.requested_before == want
    # After: the victims gone, the pod bound.
    assert view.pod_count_after == len(running) - len(ex.victims) + 1
    gone = [p for p in running if p.key in set(ex.victims)]
    for k in ("cpu", "memory"):
        assert (
            view.requested_after[k]
            == want[k] - sum(p.requests.get(k, 0) for p in gone) + (view.pod_requests[k])
        )


def test_a_second_what_if_on_the_same_snapshot_skips_the_load(
    demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    first = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    cluster_cache.cluster_cache_clear()  # a worker that did not ingest the snapshot
    with mock.patch(
        "scheduling.services.common.load_cluster", wraps=services.common.load_cluster
    ) as load:
        first = services.analysis_run(analysis_id=first.pk)
        # The first loads the stored parsed form: no object is parsed again.
        assert load.call_count == 0
        cat3_pod["metadata"]["name"] = "orange-1"
        second = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
        load.reset_mock()  # admission read the classes
        second = services.analysis_run(analysis_id=second.pk)
    assert load.call_count == 0
    assert second.load_seconds == 0.0
    assert first.load_seconds is not None and first.load_seconds > 0
    assert cluster_cache.stats == {"hits": 1, "misses": 1}
    assert second.result["pod"] == "default/orange-1"


def test_it_leaves_a_finished_analysis_alone(demo_snapshot: Any, cat3_pod: dict[str, Any]) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    services.analysis_run(analysis_id=analysis.pk)
    with mock.patch("scheduling.services.pod.analyze") as engine:
        again = services.analysis_run(analysis_id=analysis.pk)
    assert engine.call_count == 0
    assert again.attempts == 1 and again.status == AnalysisStatus.DONE


def test_it_runs_again_an_analysis_whose_worker_died(
    demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    # What a worker killed mid-run leaves behind: running, one attempt, no result.
    Analysis.objects.filter(pk=analysis.pk).update(status=AnalysisStatus.RUNNING, attempts=1)
    again = services.analysis_run(analysis_id=analysis.pk)
    assert again.status == AnalysisStatus.DONE
    assert again.attempts == 2
    assert again.result is not None
    assert without_verdict(again.result) == analyze(demo_objects(), cat3_pod).to_dict()


def test_it_records_a_pod_the_engine_rejects_as_failed(demo_snapshot: Any) -> None:
    # Stored directly, past analysis_create's check, as an older row could be.
    analysis = Analysis.objects.create(
        snapshot=demo_snapshot,
        pod_key="default/bad",
        pod={
            "kind": "Pod",
            "metadata": {"name": "bad"},
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "lots"}}}]},
        },
    )
    analysis = services.analysis_run(analysis_id=analysis.pk)
    assert analysis.status == AnalysisStatus.FAILED
    assert analysis.error.startswith("The pod is invalid:")
    assert 'invalid quantity "lots"' in analysis.error
    assert analysis.result is None


def test_a_failure_never_overwrites_a_result(demo_snapshot: Any, cat3_pod: dict[str, Any]) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    services.analysis_run(analysis_id=analysis.pk)
    after = services.analysis_fail(analysis_id=analysis.pk, error="late duplicate blew up")
    assert after.status == AnalysisStatus.DONE and after.error == ""


def test_a_failed_analysis_can_be_queued_again(
    demo_snapshot: Any, cat3_pod: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    services.analysis_fail(analysis_id=analysis.pk, error="worker lost")
    with (
        mock.patch("scheduling.tasks.analysis_run_task.delay") as delay,
        django_capture_on_commit_callbacks(execute=True),
    ):
        services.analysis_retry(analysis=analysis)
    delay.assert_called_once_with(analysis.pk)
    analysis.refresh_from_db()
    assert analysis.status == AnalysisStatus.QUEUED and analysis.error == ""


def test_the_short_form_builds_a_pending_pod() -> None:
    pod = submission.pod_from_form(
        spec=submission.PodSpecInput(
            name="web",
            namespace="shop",
            priority_class_name="cat-2",
            preemption_policy="Never",
            requests={
                "cpu": "500m",
                "memory": "1Gi",
                "ephemeral-storage": "",
                "nvidia.com/gpu": "1",
            },
            node_selector={"disk": "ssd"},
            tolerations=[{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
        )
    )
    assert pod["metadata"] == {"name": "web", "namespace": "shop"}
    spec = pod["spec"]
    assert spec["priorityClassName"] == "cat-2" and "priority" not in spec
    assert spec["preemptionPolicy"] == "Never"
    assert spec["containers"][0]["resources"]["requests"] == {
        "cpu": "500m",
        "memory": "1Gi",
        "nvidia.com/gpu": "1",
    }
    assert spec["nodeSelector"] == {"disk": "ssd"}
    assert spec["tolerations"] == [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert "nodeName" not in spec


def test_a_clone_is_pending_with_the_new_class() -> None:
    running = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "blue-1",
            "namespace": "default",
            "uid": "u-1",
            "resourceVersion": "9",
            "creationTimestamp": "2025-01-01T00:00:00Z",
            "labels": {"app": "blue"},
        },
        "spec": {
            "nodeName": "node-2",
            "priority": 10000,
            "priorityClassName": "cat-1",
            "preemptionPolicy": "PreemptLowerPriority",
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
        },
        "status": {
            "phase": "Running",
            "startTime": "2025-01-01T00:00:01Z",
            "qosClass": "Burstable",
        },
    }
    clone = submission.pod_clone(pod=running, priority_class_name="cat-3")
    assert clone["metadata"] == {
        "name": "blue-1-whatif",
        "namespace": "default",
        "labels": {"app": "blue"},
    }
    assert clone["spec"] == {
        "priorityClassName": "cat-3",
        "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
    }
    assert clone["status"] == {"phase": "Pending"}
    assert running["spec"]["nodeName"] == "node-2"  # the original is untouched


def _pod_object(*, snapshot: Any, namespace: str, name: str) -> dict[str, Any] | None:
    """The stored object of one pod, found through its browse row as the clone page does."""
    from clusters.selectors import pod_manifest

    row = snapshot.pods.filter(namespace=namespace, name=name).first()
    return None if row is None else pod_manifest(pod=row)


def test_a_clone_of_a_demo_pod_with_class_cat_3_preempts(demo_snapshot: Any) -> None:
    blue = _pod_object(
        snapshot=demo_snapshot, namespace="default", name=_first_pod_name(demo_snapshot, "blue")
    )
    assert blue is not None
    clone = submission.pod_clone(pod=blue, priority_class_name="cat-3")
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=clone)
    analysis = services.analysis_run(analysis_id=analysis.pk)
    assert analysis.result["priority"] == 30000
    assert without_verdict(analysis.result) == analyze(demo_objects(), clone).to_dict()


def test_each_pods_row_points_to_its_stored_object(demo_snapshot: Any) -> None:
    """Cloning reads one chunk, not the whole snapshot; the row says which and where."""
    from clusters.selectors import pod_manifest, snapshot_objects

    stored = {
        (o["metadata"].get("namespace") or "default", o["metadata"]["name"]): o
        for o in snapshot_objects(snapshot=demo_snapshot)
        if o["kind"] == "Pod"
    }
    rows = list(demo_snapshot.pods.all())
    assert rows and len(rows) == len(stored)
    for row in rows:
        assert row.object_chunk is not None and row.object_index is not None
        assert pod_manifest(pod=row) == stored[(row.namespace, row.name)]


def test_a_pod_of_a_snapshot_ingested_before_rows_kept_objects_is_still_found(
    demo_snapshot: Any,
) -> None:
    name = _first_pod_name(demo_snapshot, "blue")
    kept = _pod_object(snapshot=demo_snapshot, namespace="default", name=name)
    demo_snapshot.pods.update(object_chunk=None, object_index=None)
    assert _pod_object(snapshot=demo_snapshot, namespace="default", name=name) == kept
    assert _pod_object(snapshot=demo_snapshot, namespace="default", name="nope") is None


def _first_pod_name(snapshot: Any, app: str) -> str:
    return snapshot.pods.filter(name__startswith=f"{app}-").order_by("name").first().name


def test_it_shares_and_revokes(demo_snapshot: Any, cat3_pod: dict[str, Any]) -> None:
    analysis = services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod)
    a, b = (
        services.share_link_create(analysis=analysis),
        services.share_link_create(analysis=analysis),
    )
    assert a.token != b.token and len(a.token) >= 43
    services.share_link_revoke(share_link=a)
    assert a.revoked_at is not None
    assert list(analysis.share_links.active()) == [b]


def test_the_ingesting_process_keeps_the_cluster_it_built(
    demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    analysis = services.analysis_run(
        analysis_id=services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod).pk
    )
    assert analysis.load_seconds == 0.0
    assert cluster_cache.stats == {"hits": 1, "misses": 0}
    assert cluster_cache.cluster_cache_keys() == [
        cluster_cache.cluster_cache_key(snapshot=demo_snapshot)
    ]


def test_the_stored_parsed_cluster_answers_as_the_objects(
    demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    from clusters.models import ParsedCluster
    from clusters.parsed import PARSED_VERSION, parsed_cluster_fetch
    from clusters.selectors import snapshot_objects
    from scheduling.engine import analyze, load_cluster

    stored = parsed_cluster_fetch(snapshot=demo_snapshot)
    assert stored is not None
    parsed = load_cluster(snapshot_objects(snapshot=demo_snapshot))
    assert analyze(stored, cat3_pod).to_dict() == analyze(parsed, cat3_pod).to_dict()
    # Written by another engine: ignored, and written again by the next load.
    ParsedCluster.objects.filter(snapshot=demo_snapshot).update(version="0.9 (older engine)")
    assert parsed_cluster_fetch(snapshot=demo_snapshot) is None
    cluster_cache.cluster_cache_clear()
    cluster, cached = services.snapshot_load(snapshot=demo_snapshot)
    assert (
        not cached and analyze(cluster, cat3_pod).to_dict() == analyze(parsed, cat3_pod).to_dict()
    )
    assert ParsedCluster.objects.get(snapshot=demo_snapshot).version == PARSED_VERSION


def test_the_stored_parsed_cluster_is_compressed_with_lz4_on_postgresql(
    demo_snapshot: Any,
) -> None:
    """pglz would spend about a second on a large cluster's pickle; the migration asks
    PostgreSQL for lz4 (Debian's and the official images' servers have it)."""
    from django.db import connection

    from clusters.models import ParsedCluster

    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL column setting")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attcompression FROM pg_attribute "
            "WHERE attrelid = %s::regclass AND attname = 'data'",
            [ParsedCluster._meta.db_table],
        )
        assert cursor.fetchone() == ("l",)
    assert ParsedCluster.objects.filter(snapshot=demo_snapshot).exists()
