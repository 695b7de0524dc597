"""KubeSchedulerConfiguration decoding: v1 defaulting and merging ("*", multiPoint,
weights), the framework's extension points, validation messages with field paths,
the presets and the refusal of other kinds."""

from __future__ import annotations

from typing import Any

import pytest

from scheduling.engine.errors import InvalidInput
from scheduling.engine.profile import (
    OPENSHIFT_PROFILES,
    engine_config,
    load_scheduler_config,
    preset_config,
    presets,
)

HEAD = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}


def _cfg(**fields: Any) -> dict[str, Any]:
    return {**HEAD, **fields}


def _points(raw: dict[str, Any], name: str = "default-scheduler") -> Any:
    config = load_scheduler_config(raw)
    profile = config.profile(name)
    assert profile is not None
    points = engine_config(profile, config).points
    assert points is not None
    return points


def _refusal(raw: dict[str, Any]) -> str:
    with pytest.raises(InvalidInput) as e:
        load_scheduler_config(raw)
    return str(e.value)


def test_an_empty_configuration_is_the_default_profile() -> None:
    points = _points(_cfg())
    assert points.at("score") == (
        "TaintToleration",
        "NodeAffinity",
        "NodeResourcesFit",
        "VolumeBinding",
        "PodTopologySpread",
        "InterPodAffinity",
        # Scores firstAvailable choices (weight 2: the DRA conformance answers' 200).
        "DynamicResources",
        "NodeResourcesBalancedAllocation",
        "ImageLocality",
    )
    assert points.at("postFilter") == ("DynamicResources", "DefaultPreemption")
    assert points.weights["DynamicResources"] == 2
    assert points.weights["TaintToleration"] == 3
    assert points.weights["PodTopologySpread"] == 2


def test_star_disables_every_default_plugin_of_a_point_only() -> None:
    points = _points(
        _cfg(profiles=[{"plugins": {"score": {"disabled": [{"name": "*"}]}}}]),
    )
    assert points.at("score") == ()
    # preScore and filter keep the MultiPoint plugins.
    assert "InterPodAffinity" in points.at("preScore")
    assert "NodeResourcesFit" in points.at("filter")


def test_a_point_own_weight_overrides_multipoint_and_comes_first() -> None:
    points = _points(
        _cfg(
            profiles=[
                {
                    "plugins": {
                        "score": {
                            "enabled": [{"name": "NodeResourcesFit", "weight": 5}],
                            "disabled": [{"name": "NodeResourcesBalancedAllocation"}],
                        }
                    }
                }
            ]
        )
    )
    # expandMultiPointPlugins: re-configured plugins first, then MultiPoint's others.
    assert points.at("score")[0] == "NodeResourcesFit"
    assert "NodeResourcesBalancedAllocation" not in points.at("score")
    assert "NodeResourcesBalancedAllocation" in points.at("preScore")
    assert points.weights["NodeResourcesFit"] == 5


def test_multipoint_disabled_plugin_leaves_every_point() -> None:
    points = _points(
        _cfg(profiles=[{"plugins": {"multiPoint": {"disabled": [{"name": "DefaultPreemption"}]}}}])
    )
    assert points.at("postFilter") == ("DynamicResources",)


def test_a_multipoint_weight_is_the_score_weight() -> None:
    points = _points(
        _cfg(
            profiles=[
                {"plugins": {"multiPoint": {"enabled": [{"name": "ImageLocality", "weight": 7}]}}}
            ]
        )
    )
    assert points.weights["ImageLocality"] == 7
    assert points.at("score")[-1] == "ImageLocality"


def test_plugin_args_are_defaulted() -> None:
    config = load_scheduler_config(_cfg())
    args = config.profiles[0].args
    assert args["NodeResourcesFit"]["scoringStrategy"] == {
        "type": "LeastAllocated",
        "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
    }
    assert args["DefaultPreemption"] == {
        "minCandidateNodesPercentage": 10,
        "minCandidateNodesAbsolute": 100,
    }
    assert args["PodTopologySpread"]["defaultingType"] == "System"


@pytest.mark.parametrize(
    ("profile", "message"),
    [
        (
            {
                "pluginConfig": [
                    {"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "Bogus"}}}
                ]
            },
            'profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "Bogus": '
            'supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"',
        ),
        (
            {"percentageOfNodesToScore": 120},
            "profiles[0].percentageOfNodesToScore: Invalid value: 120: not in valid range [0-100]",
        ),
        (
            {
                "pluginConfig": [
                    {"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": 101}}
                ]
            },
            "profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 101: "
            "not in valid range [0, 100]",
        ),
        (
            {
                "pluginConfig": [
                    {
                        "name": "PodTopologySpread",
                        "args": {
                            "defaultConstraints": [
                                {
                                    "maxSkew": 1,
                                    "topologyKey": "zone",
                                    "whenUnsatisfiable": "ScheduleAnyway",
                                }
                            ]
                        },
                    }
                ]
            },
            'profiles[0].pluginConfig[0].args.defaultingType: Invalid value: "System": '
            "when .defaultConstraints are not empty",
        ),
    ],
)
def test_validation_names_the_field(profile: dict[str, Any], message: str) -> None:
    assert _refusal(_cfg(profiles=[profile])) == f"KubeSchedulerConfiguration: {message}"


def test_two_profiles_need_distinct_names() -> None:
    got = _refusal(_cfg(profiles=[{"schedulerName": "a"}, {"schedulerName": "a"}]))
    assert "profiles[1].schedulerName: Duplicate value" in got


def test_another_kind_or_version_is_refused() -> None:
    assert "kubescheduler.config.k8s.io/v1" in _refusal({"apiVersion": "v1", "kind": "Pod"})
    got = _refusal({**HEAD, "apiVersion": "kubescheduler.config.k8s.io/v1beta3"})
    assert 'version "kubescheduler.config.k8s.io/v1beta3"' in got
    assert 'unknown field "profiles[0].plugin"' in _refusal(_cfg(profiles=[{"plugin": {}}]))


def test_an_unknown_plugin_stops_the_framework() -> None:
    got = _refusal(_cfg(profiles=[{"plugins": {"filter": {"enabled": [{"name": "Nope"}]}}}]))
    assert 'FilterPlugin "Nope" does not exist' in got


def test_every_preset_loads_and_openshift_names_map_to_presets() -> None:
    names = [p.name for p in presets()]
    assert names[0] == "default"
    assert set(OPENSHIFT_PROFILES.values()) <= set(names)
    for name in names:
        config = preset_config(name)
        assert config.preset == name
        assert config.profiles
    high = preset_config("openshift-high-node-utilization").profiles[0]
    points = engine_config(high, preset_config("openshift-high-node-utilization")).points
    assert points is not None
    assert points.weights["NodeResourcesFit"] == 5
    assert "NodeResourcesBalancedAllocation" not in points.at("score")
    no_scoring = preset_config("openshift-no-scoring")
    points = engine_config(no_scoring.profiles[0], no_scoring).points
    assert points is not None
    assert points.at("score") == () and points.at("preScore") == ()
