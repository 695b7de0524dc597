"""What a scheduler profile changed, said by a real Celery worker on Redis: on the demo
snapshot, a MostAllocated profile packs a small pod onto another node, and a profile
without DefaultPreemption leaves the cat-3 pod pending where the default evicts."""

from __future__ import annotations

from typing import Any

import pytest

from clusters.demo import demo_cat3_pod
from clusters.services import snapshot_load_demo
from tests.scheduling.test_worker import _api, _wait_done

pytestmark = pytest.mark.worker

NO_PREEMPTION = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "plugins": {"postFilter": {"disabled": [{"name": "DefaultPreemption"}]}},
        }
    ],
}


def _small_pod() -> dict[str, Any]:
    pod = demo_cat3_pod()
    pod["metadata"]["name"] = "web-0"
    pod["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "100m", "memory": "128Mi"}
    return pod


def test_the_worker_says_what_the_profile_changed(celery_worker_process: Any, owner: Any) -> None:
    snapshot = snapshot_load_demo(owner=owner)
    api = _api(owner)
    url = f"/api/snapshots/{snapshot.pk}/analyses/"

    r = api.post(
        url, {"objects": [_small_pod()], "scheduler_preset": "most-allocated"}, format="json"
    )
    assert r.status_code == 202, r.content
    packed = _wait_done(api, r.json()["id"])
    assert packed["status"] == "done", packed["error"]
    assert packed["scheduler_difference"] == (
        "MostAllocated packs: 1 pod of 1 placed otherwise (web-0 goes to node-1, the default "
        "profile would choose node-5)."
    )
    assert packed["result"]["scheduler_profile"] == {
        "name": "default-scheduler",
        "source": "analysis",
        "preset": "most-allocated",
    }

    # The snapshot's configuration, taken when the what-if gives none.
    api.put(
        f"/api/snapshots/{snapshot.pk}/scheduler-config/",
        {"scheduler_config": NO_PREEMPTION},
        format="json",
    )
    r = api.post(url, {"objects": [demo_cat3_pod()]}, format="json")
    pending = _wait_done(api, r.json()["id"])
    assert pending["status"] == "done", pending["error"]
    assert pending["scheduler_difference"] == (
        "preemption is disabled in this profile: 1 pod stays pending, the default profile "
        "would evict 1 pod."
    )
    assert pending["result"]["scheduler_profile"]["source"] == "snapshot"
    assert pending["scheduler_config"] == NO_PREEMPTION

    # One pod: the result page's explanation, the same sentences.
    r = api.post(url, {"pod": demo_cat3_pod()}, format="json")
    one = _wait_done(api, r.json()["id"])
    assert one["status"] == "done", one["error"]
    assert one["kind"] == "pod" and one["outcome"] == "unschedulable"
    assert one["scheduler_difference"] == (
        "preemption is disabled in this profile: the pod stays pending, the default profile "
        "would evict 1 pod on node-5."
    )
    r = api.post(url, {"pod": _small_pod(), "scheduler_preset": "most-allocated"}, format="json")
    small = _wait_done(api, r.json()["id"])
    assert small["status"] == "done", small["error"]
    assert small["scheduler_difference"] == (
        "MostAllocated packs: web-0 goes to node-1, the default profile would choose node-5."
    )
    assert small["result"]["node"] == "node-1"

    # Under the default profile nothing is computed twice and nothing is said.
    api.delete(f"/api/snapshots/{snapshot.pk}/scheduler-config/")
    r = api.post(url, {"objects": [demo_cat3_pod()]}, format="json")
    plain = _wait_done(api, r.json()["id"])
    assert plain["status"] == "done", plain["error"]
    assert plain["scheduler_difference"] == ""
    assert plain["result"]["scheduler_profile"]["source"] == "default"
