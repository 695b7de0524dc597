"""Scheduler configurations over the API: where a what-if's configuration comes from (its
own, its snapshot's, the default), what is refused (400 with kube-scheduler's words and
the field path, nothing stored), the presets, and what a retry or a rerun keeps."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from clusters.demo import demo_objects
from scheduling import services
from scheduling.models import Analysis
from scheduling.scheduler_config import presets
from tests.scheduling.conftest import make_snapshot

pytestmark = pytest.mark.django_db

BOGUS = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "pluginConfig": [
                {"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "Bogus"}}}
            ],
        }
    ],
}
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


def _post(api: Any, snapshot: Any, **body: Any) -> Any:
    return api.post(f"/api/snapshots/{snapshot.pk}/analyses/", body, format="json")


@pytest.mark.parametrize(
    ("given", "words"),
    [
        (
            {"scheduler_config": BOGUS},
            'profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "Bogus"',
        ),
        ({"scheduler_config": yaml.safe_dump(BOGUS)}, 'Unsupported value: "Bogus"'),
        ({"scheduler_config": "profiles: [unclosed"}, "scheduler_config"),
        (
            {
                "scheduler_config": {
                    **NO_PREEMPTION,
                    "apiVersion": "kubescheduler.config.k8s.io/v1beta3",
                }
            },
            "kubescheduler.config.k8s.io/v1beta3",
        ),
        ({"scheduler_config": {"apiVersion": "v1", "kind": "Pod"}}, 'no kind "Pod"'),
        (
            {
                "scheduler_config": {
                    **NO_PREEMPTION,
                    "profiles": [{"schedulerName": "a"}, {"schedulerName": "a"}],
                }
            },
            # kube-scheduler names the first profile's field as the duplicated value.
            'profiles[1].schedulerName: Duplicate value: "profiles[0].schedulerName"',
        ),
    ],
)
@pytest.mark.parametrize("kind", ["pod", "workload", "capacity"])
def test_a_bad_configuration_answers_400_with_the_field_path_and_stores_nothing(
    api: Any, demo_snapshot: Any, cat3_pod: Any, no_broker: Any, given: Any, words: str, kind: str
) -> None:
    what: dict[str, Any] = {
        "pod": {"pod": cat3_pod},
        "workload": {"objects": [cat3_pod]},
        "capacity": {"kind": "capacity", "pod": cat3_pod, "limit": 3},
    }[kind]
    r = _post(api, demo_snapshot, **what, **given)
    assert r.status_code == 400, r.content
    assert words in r.json()["scheduler_config"][0]
    assert Analysis.objects.count() == 0
    no_broker.assert_not_called()


def test_an_unknown_preset_answers_400_listing_the_presets(
    api: Any, demo_snapshot: Any, cat3_pod: Any, no_broker: Any
) -> None:
    r = _post(api, demo_snapshot, pod=cat3_pod, scheduler_preset="fastest")
    assert r.status_code == 400
    message = r.json()["scheduler_preset"][0]
    assert "'fastest'" in message
    for name in presets():
        assert name in message
    assert Analysis.objects.count() == 0


def test_a_configuration_past_the_manifest_limit_is_refused(
    api: Any, demo_snapshot: Any, cat3_pod: Any, no_broker: Any, settings: Any
) -> None:
    huge = yaml.safe_dump(NO_PREEMPTION) + "# " + "x" * (1024 * 1024 + 10) + "\n"
    r = _post(api, demo_snapshot, pod=cat3_pod, scheduler_config=huge)
    assert r.status_code in (400, 413), r.content
    assert Analysis.objects.count() == 0


def test_the_preset_list_names_each_preset_with_its_configuration(api: Any) -> None:
    r = api.get("/api/scheduler-presets/")
    assert r.status_code == 200
    body = r.json()
    assert [p["name"] for p in body] == [
        "default",
        "openshift-low-node-utilization",
        "openshift-high-node-utilization",
        "openshift-no-scoring",
        "most-allocated",
        "gardener-bin-packing",
    ]
    for p in body:
        assert p["title"] and p["origin"]
        assert p["config"]["kind"] == "KubeSchedulerConfiguration"
    high = next(p for p in body if p["name"] == "openshift-high-node-utilization")
    args = high["config"]["profiles"][0]["pluginConfig"][0]["args"]
    assert args["scoringStrategy"]["type"] == "MostAllocated"


def test_the_sources_in_order_own_then_snapshot_then_default(
    api: Any, demo_snapshot: Any, cat3_pod: Any, no_broker: Any
) -> None:
    url = f"/api/snapshots/{demo_snapshot.pk}/scheduler-config/"
    first = Analysis.objects.get(pk=_post(api, demo_snapshot, pod=cat3_pod).json()["id"])
    assert (first.scheduler_source, first.scheduler_config, first.scheduler_preset) == (
        "default",
        None,
        "",
    )

    r = api.put(url, {"scheduler_config": yaml.safe_dump(NO_PREEMPTION)}, format="json")
    assert r.status_code == 200, r.content
    assert r.json()["source"] == "snapshot"
    assert api.get(url).json()["scheduler_config"] == NO_PREEMPTION
    second = Analysis.objects.get(pk=_post(api, demo_snapshot, pod=cat3_pod).json()["id"])
    assert (second.scheduler_source, second.scheduler_config) == ("snapshot", NO_PREEMPTION)

    third = Analysis.objects.get(
        pk=_post(api, demo_snapshot, pod=cat3_pod, scheduler_preset="most-allocated").json()["id"]
    )
    assert (third.scheduler_source, third.scheduler_preset) == ("analysis", "most-allocated")
    assert third.scheduler_config is None

    assert api.delete(url).status_code == 204
    assert api.get(url).json()["source"] == "default"
    fourth = Analysis.objects.get(pk=_post(api, demo_snapshot, pod=cat3_pod).json()["id"])
    assert fourth.scheduler_source == "default"
    # The analysis made under the snapshot's configuration keeps it.
    second.refresh_from_db()
    assert second.scheduler_config == NO_PREEMPTION


def test_put_refuses_a_bad_configuration_and_keeps_the_old_one(
    api: Any, demo_snapshot: Any
) -> None:
    url = f"/api/snapshots/{demo_snapshot.pk}/scheduler-config/"
    assert (
        api.put(url, {"scheduler_preset": "openshift-no-scoring"}, format="json").status_code == 200
    )
    r = api.put(url, {"scheduler_config": BOGUS}, format="json")
    assert r.status_code == 400
    assert r.json()["scheduler_config"][0].startswith(
        "KubeSchedulerConfiguration: "
        "profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value"
    )
    assert api.get(url).json()["preset"] == "openshift-no-scoring"
    assert api.put(url, {}, format="json").status_code == 400


def test_another_users_snapshot_configuration_answers_404(
    api: Any, stranger: Any, demo_snapshot: Any
) -> None:
    theirs = make_snapshot(stranger, demo_objects(), name="theirs")
    url = f"/api/snapshots/{theirs.pk}/scheduler-config/"
    assert api.get(url).status_code == 404
    assert api.put(url, {"scheduler_preset": "default"}, format="json").status_code == 404
    assert api.delete(url).status_code == 404


def test_retry_and_rerun_keep_the_configuration(
    api: Any, owner: Any, demo_snapshot: Any, cat3_pod: Any, no_broker: Any
) -> None:
    own = Analysis.objects.get(
        pk=_post(api, demo_snapshot, pod=cat3_pod, scheduler_config=NO_PREEMPTION).json()["id"]
    )
    services.analysis_fail(analysis_id=own.pk, error="lost worker")
    retried = services.analysis_retry(analysis=Analysis.objects.get(pk=own.pk))
    assert (retried.scheduler_source, retried.scheduler_config) == ("analysis", NO_PREEMPTION)

    other = make_snapshot(owner, demo_objects(), name="other")
    rerun = services.analysis_rerun(analysis=own, snapshot=other)
    assert (rerun.scheduler_source, rerun.scheduler_config) == ("analysis", NO_PREEMPTION)

    # One that took its snapshot's configuration takes the other snapshot's instead.
    api.put(
        f"/api/snapshots/{demo_snapshot.pk}/scheduler-config/",
        {"scheduler_preset": "most-allocated"},
        format="json",
    )
    inherited = Analysis.objects.get(pk=_post(api, demo_snapshot, pod=cat3_pod).json()["id"])
    assert inherited.scheduler_preset == "most-allocated"
    moved = services.analysis_rerun(analysis=inherited, snapshot=other)
    assert (moved.scheduler_source, moved.scheduler_preset) == ("default", "")


@pytest.mark.parametrize(
    ("config", "says"),
    [
        (
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
            "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
            "      scoringStrategy:\n        typ: MostAllocated\n",
            'strict decoding error: unknown field "profiles[0].pluginConfig[0].args.'
            'scoringStrategy.typ"',
        ),
        (
            "apiVersion: config.openshift.io/v1\nkind: Scheduler\nmetadata: {name: cluster}\n"
            "spec: {profile: NoScoring}\n",
            "its spec.profile NoScoring is the preset openshift-no-scoring",
        ),
    ],
)
def test_the_scheduler_tab_names_a_misspelt_field_and_the_openshift_resource(
    api: Any, demo_snapshot: Any, config: str, says: str
) -> None:
    url = f"/api/snapshots/{demo_snapshot.pk}/scheduler-config/"
    r = api.put(url, {"scheduler_config": config}, format="json")
    assert r.status_code == 400
    (error,) = r.json()["scheduler_config"]
    assert says in error
    assert "Unsupported value" not in error
