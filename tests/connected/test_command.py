"""manage.py cluster add|edit|list|remove|snapshot, and the PeriodicTask kept in step; a
context is checked against the workers' kubeconfig; alert rules and the webhook secret."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import CommandError
from django_celery_beat.models import PeriodicTask

from clusters.models import Snapshot
from connected.every import format_every, parse_every
from connected.models import Cluster

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def kubeconfig(tmp_path: Path, settings: Any) -> Path:
    """The workers' kubeconfig: the contexts these tests name."""
    path = tmp_path / "workers.kubeconfig"
    contexts = ["prod-admin", "a", "b"]
    path.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:1"}}],
                "users": [{"name": "u", "user": {"token": "not-a-secret"}}],
                "contexts": [
                    {"name": n, "context": {"cluster": "c", "user": "u"}} for n in contexts
                ],
            }
        )
    )
    settings.CONNECTED_KUBECONFIG = str(path)
    return path


def _run(*args: str) -> str:
    out = StringIO()
    call_command("cluster", *args, stdout=out)
    return out.getvalue()


def test_every_is_read_in_seconds_minutes_or_hours() -> None:
    assert [parse_every(t) for t in ("90", "90s", "15m", "2h")] == [90, 90, 900, 7200]
    for bad in ("0", "15d", "m", "-5m", "1.5h", ""):
        with pytest.raises(ValueError):
            parse_every(bad)
    assert [format_every(s) for s in (900, 7200, 90, 2)] == ["15m", "2h", "90s", "2s"]


def test_add_makes_the_cluster_and_its_schedule(owner: Any, staff: Any) -> None:
    Group.objects.create(name="platform")
    said = _run(
        "add", "prod", "--context", "prod-admin", "--every", "15m", "--keep", "96",
        "--webhook", "https://hooks.example/a", "--webhook", "https://hooks.example/b",
        "--owner", "owner", "--team", "platform",
    )  # fmt: skip
    assert "prod (prod-admin) is read every 15m, keeping 96; owned by owner" in said
    cluster = Cluster.objects.get(name="prod")
    assert (cluster.source, cluster.schedule_seconds, cluster.keep) == ("prod-admin", 900, 96)
    assert cluster.owner == owner and cluster.team is not None and cluster.team.name == "platform"
    assert cluster.webhook_urls == ["https://hooks.example/a", "https://hooks.example/b"]
    task = PeriodicTask.objects.get(pk=cluster.periodic_task_id)
    assert task.task == "connected.cluster_snapshot" and json.loads(task.args) == [cluster.pk]
    assert task.interval is not None
    assert (task.interval.every, task.interval.period) == (900, "seconds") and task.enabled


def test_add_again_changes_the_cluster_and_moves_its_schedule(owner: Any) -> None:
    _run("add", "prod", "--context", "a", "--owner", "owner")
    _run("add", "prod", "--in-cluster", "--every", "2h")
    cluster = Cluster.objects.get(name="prod")
    assert cluster.source == "in-cluster" and cluster.owner == owner
    assert PeriodicTask.objects.filter(task="connected.cluster_snapshot").count() == 1
    task = PeriodicTask.objects.get(pk=cluster.periodic_task_id)
    assert task.interval is not None and task.interval.every == 7200


def test_the_owner_defaults_to_the_first_superuser(django_user_model: Any) -> None:
    with pytest.raises(CommandError, match="no superuser"):
        _run("add", "prod", "--context", "a")
    root = django_user_model.objects.create_superuser("root", "root@example.com", "x")
    _run("add", "prod", "--context", "a")
    assert Cluster.objects.get(name="prod").owner == root


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--every", "15d"], "is not a schedule"),
        (["--owner", "nobody"], "No user named 'nobody'"),
        (["--team", "nobody"], "No group named 'nobody'"),
        (["--webhook", "ftp://x"], "webhook_urls"),
        (["--keep", "0"], "keep"),
    ],
)
def test_bad_input_is_named(owner: Any, args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        _run("add", "prod", "--context", "a", "--owner", "owner", *args)
    assert not Cluster.objects.exists() and not PeriodicTask.objects.exists()


def test_list_and_remove_keep_the_snapshots(owner: Any) -> None:
    _run("add", "prod", "--context", "a", "--owner", "owner", "--every", "90s")
    cluster = Cluster.objects.get(name="prod")
    Cluster.objects.filter(pk=cluster.pk).update(
        last_failure_reason="x", last_failure_at="2026-01-01T00:00:00Z"
    )
    snapshot = Snapshot.objects.create(owner=owner, name="s", cluster=cluster, status="ready")
    listed = _run("list")
    assert listed.startswith("prod\ta\tevery 90s\tkeep 96\towner\tnever read; failing: x")
    assert "Cluster prod removed" in _run("remove", "prod")
    assert not Cluster.objects.exists() and not PeriodicTask.objects.exists()
    snapshot.refresh_from_db()
    assert snapshot.cluster is None  # an ordinary snapshot of its owner now
    with pytest.raises(CommandError, match="No cluster named 'prod'"):
        _run("remove", "prod")


def test_snapshot_reads_now(served: Path, demo_cluster: Cluster) -> None:
    said = _run("snapshot", "demo")
    assert "of demo: 5 nodes, 22 pods, 1 event of the last hour (1 kept)" in said
    Cluster.objects.filter(pk=demo_cluster.pk).update(source="elsewhere")
    with pytest.raises(CommandError, match="elsewhere"):
        _run("snapshot", "demo")


def test_the_admin_keeps_the_schedule_in_step_and_refuses_bad_input(
    client: Any, django_user_model: Any, owner: Any
) -> None:
    root = django_user_model.objects.create_superuser("root", "root@example.com", "x")
    client.force_login(root)
    form = {"name": "prod", "source": "ctx", "schedule_seconds": "60", "keep": "5",
            "owner": owner.pk, "team": "", "webhook_urls": "[]"}  # fmt: skip
    added = client.post("/admin/connected/cluster/add/", form)
    assert added.status_code == 302, added.content.decode()[-2000:]
    cluster = Cluster.objects.get(name="prod")
    task = PeriodicTask.objects.get(pk=cluster.periodic_task_id)
    assert task.interval is not None and task.interval.every == 60
    bad = client.post(f"/admin/connected/cluster/{cluster.pk}/change/", {**form, "source": "a b"})
    assert bad.status_code == 200 and b"Name a kubeconfig context" in bad.content
    changed = client.post(
        f"/admin/connected/cluster/{cluster.pk}/change/", {**form, "schedule_seconds": "7200"}
    )
    assert changed.status_code == 302
    task.refresh_from_db()
    assert task.interval is not None and task.interval.every == 7200
    deleted = client.post(f"/admin/connected/cluster/{cluster.pk}/delete/", {"post": "yes"})
    assert deleted.status_code == 302 and not PeriodicTask.objects.exists()


def test_a_schedule_left_by_a_cluster_deleted_with_its_owner_goes(
    owner: Any, django_user_model: Any
) -> None:
    from connected.tasks import cluster_snapshot_task

    _run("add", "prod", "--context", "a", "--owner", "owner")
    pk = Cluster.objects.get().pk
    owner.delete()  # the cluster goes with its owner, its PeriodicTask does not
    assert not Cluster.objects.exists() and PeriodicTask.objects.count() == 1
    cluster_snapshot_task.apply(args=[pk])
    assert not PeriodicTask.objects.exists()


def test_a_context_missing_from_the_kubeconfig_is_refused_naming_those_there(
    owner: Any, kubeconfig: Path
) -> None:
    with pytest.raises(CommandError) as refused:
        _run("add", "prod", "--context", "fakee", "--owner", "owner")
    said = str(refused.value)
    assert 'No context "fakee"' in said and "a, b, prod-admin" in said
    assert str(kubeconfig) in said
    assert not Cluster.objects.exists()
    _run("add", "prod", "--in-cluster", "--owner", "owner")  # no kubeconfig asked
    with pytest.raises(CommandError, match='No context "nope"'):
        _run("edit", "prod", "--context", "nope")


def test_edit_changes_only_what_is_given_and_sets_alert_rules(owner: Any) -> None:
    said = _run("add", "prod", "--context", "a", "--owner", "owner", "--every", "90s")
    # A new cluster's secret is generated and printed once.
    cluster = Cluster.objects.get(name="prod")
    assert len(cluster.webhook_secret) >= 32 and cluster.webhook_secret in said
    assert cluster.alert_rules is None  # the defaults
    assert "alerts: preemption, pdb-at-zero, finding>=error, unreadable>=1h" in said
    said = _run(
        "edit", "prod", "--alert", "preemption>=1000000000", "--alert", "pdb-at-zero",
        "--alert", "unreadable>=10m", "--webhook-secret", "s" * 20,
    )  # fmt: skip
    cluster.refresh_from_db()
    assert cluster.alert_rules == ["preemption>=1000000000", "pdb-at-zero", "unreadable>=10m"]
    assert (cluster.source, cluster.schedule_seconds) == ("a", 90)
    assert cluster.webhook_secret == "s" * 20 and "s" * 20 not in said
    said = _run("edit", "prod", "--webhook-secret", "generate", "--alert", "none")
    cluster.refresh_from_db()
    assert cluster.webhook_secret != "s" * 20 and cluster.webhook_secret in said
    assert cluster.alert_rules == [] and "alerts: none" in said
    _run("edit", "prod", "--alert", "default")
    cluster.refresh_from_db()
    assert cluster.alert_rules is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--alert", "preemption>=high"], "a priority is an integer"),
        (["--alert", "pdb"], "is not an alert rule"),
        (["--alert", "finding>=fatal"], "a severity is info, warning or error"),
        (["--alert", "unreadable>=soon"], "a duration is 90s, 15m or 2h"),
        (["--webhook-secret", "short"], "at least 16 characters"),
    ],
)
def test_bad_rules_and_secrets_are_named(owner: Any, args: list[str], message: str) -> None:
    _run("add", "prod", "--context", "a", "--owner", "owner")
    with pytest.raises(CommandError, match=message):
        _run("edit", "prod", *args)


def test_the_admin_sets_alert_rules_and_shows_a_generated_secret_once(
    client: Any, django_user_model: Any, owner: Any
) -> None:
    root = django_user_model.objects.create_superuser("root", "root@example.com", "x")
    client.force_login(root)
    form = {"name": "prod", "source": "ctx", "schedule_seconds": "60", "keep": "5",
            "owner": owner.pk, "team": "", "webhook_urls": "[]",
            "alert_rules_text": "preemption>=1000000000\npdb-at-zero\n"}  # fmt: skip
    added = client.post("/admin/connected/cluster/add/", form, follow=True)
    cluster = Cluster.objects.get(name="prod")
    assert cluster.alert_rules == ["preemption>=1000000000", "pdb-at-zero"]
    page = added.content.decode()
    assert cluster.webhook_secret in page  # shown once, after saving
    again = client.get(f"/admin/connected/cluster/{cluster.pk}/change/").content.decode()
    assert cluster.webhook_secret not in again
    assert "preemption&gt;=1000000000\npdb-at-zero" in again
    bad = client.post(
        f"/admin/connected/cluster/{cluster.pk}/change/",
        {**form, "alert_rules_text": "finding>=fatal"},
    )
    assert bad.status_code == 200 and b"a severity is info, warning or error" in bad.content
    kept = client.post(
        f"/admin/connected/cluster/{cluster.pk}/change/", {**form, "alert_rules_text": ""}
    )
    assert kept.status_code == 302
    secret = cluster.webhook_secret
    cluster.refresh_from_db()
    assert cluster.alert_rules is None and cluster.webhook_secret == secret
