"""The rules about the cluster's scheduler profiles, each on a configuration that
triggers it and one that does not."""

from __future__ import annotations

from typing import Any

from scheduling.engine import load_cluster
from scheduling.engine.plan import audit

from ..builders import make_node, make_pod, make_priority_class

NO_PREEMPTION: dict[str, Any] = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "plugins": {"postFilter": {"disabled": [{"name": "DefaultPreemption"}]}},
        },
        {"schedulerName": "batch"},
    ],
}


def _objects() -> list[dict[str, Any]]:
    return [
        make_priority_class("high", 1000),
        make_priority_class("zero", 0),
        make_node("n1").obj(),
        make_pod("running").node("n1").priority_class("high").obj(),
        make_pod("waiting").obj(),
    ]


def _findings(objects: list[dict[str, Any]], rule: str, config: Any) -> list[Any]:
    return [f for f in audit(load_cluster(objects), scheduler_config=config) if f.rule == rule]


def test_preemption_disabled_names_the_profile_and_the_classes_above_zero() -> None:
    (f,) = _findings(_objects(), "preemption-disabled", NO_PREEMPTION)
    assert f.severity == "warning"
    assert f.objects == (
        "KubeSchedulerConfiguration profile default-scheduler",
        "PriorityClass high",
    )
    assert "Profile default-scheduler runs without DefaultPreemption" in f.message
    assert "DefaultPreemption" in f.fix


def test_preemption_disabled_is_quiet_with_preemption_or_no_class_above_zero() -> None:
    assert _findings(_objects(), "preemption-disabled", None) == []
    only_zero = [o for o in _objects() if o["metadata"]["name"] != "high"]
    assert _findings(only_zero, "preemption-disabled", NO_PREEMPTION) == []
    # NoScoring keeps preemption.
    no_scoring = {
        **NO_PREEMPTION,
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {"score": {"disabled": [{"name": "*"}]}},
            }
        ],
    }
    assert _findings(_objects(), "preemption-disabled", no_scoring) == []


def test_pods_without_profile_lists_pending_pods_of_an_unknown_scheduler() -> None:
    objects = [
        *_objects(),
        make_pod("gpu-0").obj(),
        make_pod("elsewhere").node("n1").obj(),
    ]
    for pod in objects[-2:]:
        pod["spec"]["schedulerName"] = "volcano"
    (f,) = _findings(objects, "pods-without-profile", NO_PREEMPTION)
    # The bound one was placed by a scheduler that runs: only the pending one counts.
    assert f.message.startswith("1 pending pod of ")
    assert (
        "names schedulerName volcano, which no profile has (batch and default-scheduler)"
        in f.message
    )
    assert f.objects[0] == "KubeSchedulerConfiguration profile volcano"
    # A profile of that name: nothing to say.
    named = {
        **NO_PREEMPTION,
        "profiles": [*NO_PREEMPTION["profiles"], {"schedulerName": "volcano"}],
    }
    assert _findings(objects, "pods-without-profile", named) == []
    # Under the default configuration the pods naming default-scheduler are fine.
    assert [f.objects[0] for f in _findings(objects, "pods-without-profile", None)] == [
        "KubeSchedulerConfiguration profile volcano"
    ]
