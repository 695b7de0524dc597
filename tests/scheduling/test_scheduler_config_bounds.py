"""Scheduler configurations held to what kube-scheduler's decoder and framework hold them
to: int32 fields (weights, minCandidateNodesAbsolute, ...), weights that are not negative,
the total-score bound, and a NUL anywhere: a 400 with the words, never a 500."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from scheduling.engine import InvalidInput, load_scheduler_config
from scheduling.engine.profile import extension_points
from scheduling.engine.profile.types import PluginRef, PluginSet

pytestmark = pytest.mark.django_db

BASE: dict[str, Any] = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler"}],
}


def _with(**profile: Any) -> dict[str, Any]:
    config = copy.deepcopy(BASE)
    config["profiles"][0] |= profile
    return config


def _weight(w: int) -> dict[str, Any]:
    return _with(plugins={"score": {"enabled": [{"name": "NodeResourcesFit", "weight": w}]}})


def _preemption(**args: int) -> dict[str, Any]:
    return _with(pluginConfig=[{"name": "DefaultPreemption", "args": args}])


@pytest.mark.parametrize(
    ("config", "words"),
    [
        (
            _weight(2**70),
            "json: cannot unmarshal number 1180591620717411303424 into Go struct field "
            "profiles[0].plugins.score.enabled[0].weight of type int32",
        ),
        (_weight(-5), "profiles[0].plugins.score.enabled[0].weight: Invalid value: -5"),
        (
            _preemption(minCandidateNodesAbsolute=10**12),
            "cannot unmarshal number 1000000000000 into Go struct field "
            "profiles[0].pluginConfig[0].args.minCandidateNodesAbsolute of type int32",
        ),
        (
            _preemption(minCandidateNodesAbsolute=-1),
            "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)",
        ),
        (
            {**BASE, "parallelism": 2**31},
            "cannot unmarshal number 2147483648 into Go struct field parallelism of type int32",
        ),
        (_with(schedulerName="default\x00scheduler"), "contains a NUL character"),
    ],
)
def test_refused_over_the_api_with_words(
    api: Any, demo_snapshot: Any, config: dict[str, Any], words: str
) -> None:
    url = f"/api/snapshots/{demo_snapshot.pk}/scheduler-config/"
    r = api.put(url, {"scheduler_config": config}, format="json")
    assert r.status_code == 400, r.content
    assert words in r.json()["scheduler_config"][0], r.json()
    assert api.get(url).json()["source"] == "default"


def test_the_largest_int32_weight_is_accepted() -> None:
    profile = load_scheduler_config(_weight(2**31 - 1)).profiles[0]
    assert extension_points.build(profile.plugins).weights["NodeResourcesFit"] == 2**31 - 1


def test_weights_whose_total_could_overflow_int64_stop_the_framework() -> None:
    """getScoreWeights' bound, met only by weights beyond int32 (refused before it)."""
    plugins = copy.deepcopy(load_scheduler_config(BASE).profiles[0].plugins)
    heavy = 2**62 // 100
    plugins["score"] = PluginSet(
        (PluginRef("NodeResourcesFit", heavy), PluginRef("ImageLocality", heavy)), ()
    )
    with pytest.raises(extension_points.FrameworkError, match="could overflow"):
        extension_points.build(plugins)


def test_the_engine_refuses_a_negative_weight_directly() -> None:
    with pytest.raises(InvalidInput, match="must be a positive integer"):
        load_scheduler_config(_weight(-5))
