from __future__ import annotations

from typing import Any

import orjson

from clusters import models, selectors, services
from tests.clusters.builders import dump, make_node, make_pod

SECRET_VALUE = "hunter2-do-not-keep"


def _dirty_objects() -> list[dict[str, Any]]:
    pod = make_pod(
        "web-1",
        env=[
            {"name": "PASSWORD", "value": SECRET_VALUE},
            {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
        ],
    )
    pod["spec"]["containers"][0]["envFrom"] = [{"secretRef": {"name": "web-secrets"}}]
    pod["metadata"]["managedFields"] = [{"manager": "kubectl", "fieldsV1": {"f:spec": {}}}]
    pod["metadata"]["annotations"] = {
        "kubectl.kubernetes.io/last-applied-configuration": f'{{"env": "{SECRET_VALUE}"}}',
        "team": "web",
    }
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "web-secrets"},
        "data": {"p": "aHVudGVyMg=="},
        "stringData": {"q": SECRET_VALUE},
    }
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "web-config"},
        "data": {"k": SECRET_VALUE},
    }
    return [make_node(), pod, secret, config]


def _ingest(owner: Any, data: bytes, name: str = "dirty.json") -> Any:
    return services.snapshot_create(
        owner=owner, name="", files=[services.UploadedFile(name=name, data=data)]
    )


def test_it_removes_secrets_and_counts_them(owner: Any) -> None:
    snapshot = _ingest(owner, dump(_dirty_objects()))
    assert snapshot.scrubbed == {
        "ConfigMap": 1,
        "Secret": 1,
        "envFrom": 1,
        "envValues": 2,
        "lastAppliedConfiguration": 1,
        "managedFields": 1,
    }
    stored = orjson.dumps(selectors.snapshot_objects(snapshot=snapshot)).decode()
    assert SECRET_VALUE not in stored
    assert "aHVudGVyMg" not in stored
    assert "managedFields" not in stored and "envFrom" not in stored
    assert "Secret" not in stored and "ConfigMap" not in stored


def test_it_keeps_what_scheduling_and_the_pages_need(owner: Any) -> None:
    snapshot = _ingest(owner, dump(_dirty_objects()))
    pod = next(o for o in selectors.snapshot_objects(snapshot=snapshot) if o["kind"] == "Pod")
    assert pod["metadata"]["labels"] == {"app": "web"}
    assert pod["metadata"]["annotations"] == {"team": "web"}
    assert pod["spec"]["containers"][0]["resources"] == {
        "requests": {"cpu": "500m", "memory": "256Mi"}
    }
    assert pod["spec"]["nodeName"] == "node-a"
    assert pod["status"]["phase"] == "Running"
    assert models.Pod.objects.get(snapshot=snapshot).cpu_request == 500


def test_the_fast_json_path_scrubs_the_same(owner: Any, settings: Any) -> None:
    # Padding pods push the file over the fast path's threshold.
    pods = [make_pod(f"pad-{i}", env=[{"name": "X", "value": "y" * 200}]) for i in range(3000)]
    data = dump([*_dirty_objects(), *pods])
    assert len(data) > 1024 * 1024
    snapshot = _ingest(owner, data)
    assert snapshot.is_ready, snapshot.error
    assert snapshot.scrubbed["envValues"] == 2 + 3000
    assert snapshot.scrubbed["Secret"] == 1 and snapshot.scrubbed["ConfigMap"] == 1
    assert (
        snapshot.scrubbed["managedFields"] == 1
        and snapshot.scrubbed["lastAppliedConfiguration"] == 1
    )
    stored = orjson.dumps(selectors.snapshot_objects(snapshot=snapshot)).decode()
    assert SECRET_VALUE not in stored and "y" * 200 not in stored


def test_the_overview_says_what_was_removed(owner_client: Any, owner: Any) -> None:
    snapshot = _ingest(owner, dump(_dirty_objects()))
    body = owner_client.get(f"/snapshots/{snapshot.pk}/").content.decode()
    assert "1 Secret objects dropped" in body
    assert "1 ConfigMap objects dropped" in body
    assert "2 environment variable values removed" in body
    assert "last-applied-configuration annotations removed" in body
