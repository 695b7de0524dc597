"""The words of a scheduler configuration that is not what it should be: a misspelt
field is named as unknown (kube-scheduler decodes strictly), OpenShift's Scheduler
resource is recognised and its preset named, a preset whose change lies in another
profile says so."""

from __future__ import annotations

import pytest

from scheduling.engine import InvalidInput, load_scheduler_config, preset_config, presets
from scheduling.engine.profile import OPENSHIFT_PROFILES

HEAD = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}


def _fit_args(**args: object) -> dict[str, object]:
    return {**HEAD, "profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": args}]}]}


@pytest.mark.parametrize(
    ("config", "field"),
    [
        (_fit_args(scoringStrategy={"typ": "MostAllocated"}), "args.scoringStrategy.typ"),
        (_fit_args(scoringstrategy={"type": "MostAllocated"}), "args.scoringstrategy"),
        (
            _fit_args(
                scoringStrategy={
                    "type": "RequestedToCapacityRatio",
                    "requestedToCapacityRatio": {"shapes": []},
                }
            ),
            "args.scoringStrategy.requestedToCapacityRatio.shapes",
        ),
        (
            {
                **HEAD,
                "profiles": [
                    {
                        "pluginConfig": [
                            {"name": "DefaultPreemption", "args": {"minCandidateNodes": 5}}
                        ]
                    }
                ],
            },
            "args.minCandidateNodes",
        ),
    ],
)
def test_a_misspelt_field_is_an_unknown_field(config: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidInput) as e:
        load_scheduler_config(config)
    said = str(e.value)
    assert f'strict decoding error: unknown field "profiles[0].pluginConfig[0].{field}"' in said
    assert "Unsupported value" not in said


def test_the_args_kube_scheduler_accepts_still_load() -> None:
    ok = _fit_args(
        apiVersion="kubescheduler.config.k8s.io/v1",
        kind="NodeResourcesFitArgs",
        scoringStrategy={"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}]},
    )
    assert load_scheduler_config(ok).profiles[0].scheduler_name == "default-scheduler"


@pytest.mark.parametrize(("profile", "preset"), sorted(OPENSHIFT_PROFILES.items()))
def test_openshifts_scheduler_resource_is_recognised_and_its_preset_named(
    profile: str, preset: str
) -> None:
    cr = {
        "apiVersion": "config.openshift.io/v1",
        "kind": "Scheduler",
        "metadata": {"name": "cluster"},
        "spec": {"profile": profile, "mastersSchedulable": False},
    }
    with pytest.raises(InvalidInput) as e:
        load_scheduler_config(cr)
    said = str(e.value)
    assert "OpenShift's Scheduler resource" in said
    assert f"its spec.profile {profile} is the preset {preset}" in said
    assert preset in {p.name for p in presets()}


def test_the_bin_packing_preset_says_which_pods_it_changes() -> None:
    config = preset_config("gardener-bin-packing")
    assert [p.scheduler_name for p in config.profiles] == [
        "default-scheduler",
        "bin-packing-scheduler",
    ]
    titles = {p.name: p.title for p in presets()}
    assert "bin-packing-scheduler" in titles["gardener-bin-packing"]
