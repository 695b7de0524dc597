"""simulate()/analyze() under a KubeSchedulerConfiguration: the pod's own profile
answers (weights, MostAllocated, no preemption), a schedulerName that names no
profile leaves the pod pending with the reason, and results name the profile."""

from __future__ import annotations

from typing import Any

import pytest

from scheduling.engine import (
    InvalidInput,
    analysis_difference,
    analyze,
    load_scheduler_config,
    preset_config,
    simulate,
    simulation_difference,
)
from scheduling.engine.profile.difference import SAME

from .builders import make_node, make_pod, make_priority_class

HEAD = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}
NO_PREEMPTION = {
    **HEAD,
    "profiles": [{"plugins": {"postFilter": {"disabled": [{"name": "DefaultPreemption"}]}}}],
}


def _two_nodes() -> list[dict[str, Any]]:
    """busy has 3 of 4 cpu requested, idle none: LeastAllocated picks idle,
    MostAllocated busy."""
    return [
        make_node("busy").capacity(cpu="4", memory="8Gi").obj(),
        make_node("idle").capacity(cpu="4", memory="8Gi").obj(),
        make_pod("old", "batch").node("busy").req(cpu="3", memory="1Gi").obj(),
    ]


def _web(scheduler: str = "default-scheduler") -> dict[str, Any]:
    pod = make_pod("web-0").req(cpu="500m", memory="512Mi").obj()
    pod["spec"]["schedulerName"] = scheduler
    return pod


def test_most_allocated_packs_where_the_default_spreads() -> None:
    default = analyze(_two_nodes(), _web())
    packed = analyze(_two_nodes(), _web(), scheduler_config=preset_config("most-allocated"))
    assert default.node == "idle"
    assert packed.node == "busy"
    assert packed.to_dict()["scheduler_profile"] == {
        "name": "default-scheduler",
        "source": "analysis",
        "preset": "most-allocated",
    }
    assert default.to_dict()["scheduler_profile"] == {
        "name": "default-scheduler",
        "source": "default",
        "preset": "default",
    }


def test_the_caller_names_the_source_and_preset_of_a_parsed_config() -> None:
    got = analyze(
        _two_nodes(),
        _web(),
        scheduler_config=HEAD,
        scheduler_source="snapshot",
        scheduler_preset=None,
    ).to_dict()
    assert got["scheduler_profile"] == {
        "name": "default-scheduler",
        "source": "snapshot",
        "preset": None,
    }


def _full_cluster() -> list[dict[str, Any]]:
    return [
        make_priority_class("low", 100),
        make_priority_class("high", 10_000),
        make_node("n1").capacity(cpu="2", memory="8Gi").obj(),
        make_pod("victim", "batch").priority_class("low").node("n1").req(cpu="2").obj(),
    ]


def test_without_default_preemption_the_pod_stays_pending_and_evicts_nobody() -> None:
    pending = make_pod("urgent").priority_class("high").req(cpu="1").obj()
    assert analyze(_full_cluster(), pending).victims == ["batch/victim"]
    got = analyze(_full_cluster(), pending, scheduler_config=NO_PREEMPTION)
    assert got.outcome == "unschedulable" and got.victims == []
    # DynamicResources' PostFilter still speaks; DefaultPreemption's words are gone.
    assert got.message == "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate"
    sim = simulate(_full_cluster(), [pending], scheduler_config=NO_PREEMPTION).to_dict()
    assert sim["deleted_victims"] == [] and sim["nominations"] == []
    assert sim["pods"][0]["final"] == "pending"
    assert sim["cycles"][0]["message"].endswith(". no new claims to deallocate")


def test_a_pod_naming_no_profile_is_never_scheduled() -> None:
    pods = [_web("my-scheduler"), make_pod("api").req(cpu="100m").obj()]
    sim = simulate(_two_nodes(), pods, scheduler_config=HEAD).to_dict()
    by_pod = {p["pod"]: p for p in sim["pods"]}
    ignored = by_pod["default/web-0"]
    assert ignored["final"] == "pending" and ignored["attempts"] == 0
    assert 'spec.schedulerName "my-scheduler" names no profile' in ignored["not_scheduled"]
    assert by_pod["default/api"]["final"] == "bound"
    assert [c["pod"] for c in sim["cycles"]] == ["default/api"]
    result = analyze(_two_nodes(), _web("my-scheduler"), scheduler_config=HEAD)
    assert result.outcome == "unschedulable" and result.node is None
    assert "kube-scheduler ignores the pod" in result.message
    assert result.to_dict()["scheduler_profile"]["name"] == "my-scheduler"
    # Without a configuration every pod is the default profile's, as before.
    assert simulate(_two_nodes(), pods).to_dict()["pods"][0]["final"] == "bound"


def test_each_pod_runs_under_the_profile_it_names() -> None:
    config = preset_config("gardener-bin-packing")
    pods = [_web("bin-packing-scheduler")]
    sim = simulate(_two_nodes(), pods, scheduler_config=config).to_dict()
    assert sim["pods"][0]["node"] == "busy"
    assert sim["scheduler_profile"]["name"] == "bin-packing-scheduler"
    assert (
        simulate(_two_nodes(), [_web()], scheduler_config=config).to_dict()["pods"][0]["node"]
        == "idle"
    )


def test_a_bad_config_is_refused_before_anything_runs() -> None:
    bad = {**HEAD, "profiles": [{"plugins": {"score": {"enabled": [{"name": "NodePorts"}]}}}]}
    with pytest.raises(InvalidInput, match='plugin "NodePorts" does not extend ScorePlugin'):
        simulate(_two_nodes(), [_web()], scheduler_config=bad)
    with pytest.raises(InvalidInput, match="KubeSchedulerConfiguration"):
        analyze(_two_nodes(), _web(), scheduler_config={"kind": "Pod", "apiVersion": "v1"})


def test_the_difference_from_the_default_profile_in_one_sentence() -> None:
    config = preset_config("most-allocated")
    packed = analyze(_two_nodes(), _web(), scheduler_config=config).to_dict()
    default = analyze(_two_nodes(), _web()).to_dict()
    assert (
        analysis_difference(packed, default, config.profiles[0])
        == "MostAllocated packs: web-0 goes to busy, the default profile would choose idle."
    )
    assert analysis_difference(default, default) == SAME
    pending = make_pod("urgent").priority_class("high").req(cpu="1").obj()
    stays = analyze(_full_cluster(), pending, scheduler_config=NO_PREEMPTION).to_dict()
    evicts = analyze(_full_cluster(), pending).to_dict()
    assert analysis_difference(stays, evicts) == (
        "preemption is disabled in this profile: the pod stays pending, "
        "the default profile would evict 1 pod on n1."
    )
    no_preemption = load_scheduler_config(NO_PREEMPTION)
    run = simulate(_full_cluster(), [pending], scheduler_config=no_preemption).to_dict()
    assert simulation_difference(
        run, simulate(_full_cluster(), [pending]).to_dict(), no_preemption.profiles[0]
    ) == (
        "preemption is disabled in this profile: 1 pod stays pending, "
        "the default profile would evict 1 pod."
    )
    sim = simulate(_two_nodes(), [_web()], scheduler_config=config).to_dict()
    assert simulation_difference(
        sim, simulate(_two_nodes(), [_web()]).to_dict(), config.profiles[0]
    ) == (
        "MostAllocated packs: 1 pod of 1 placed otherwise "
        "(web-0 goes to busy, the default profile would choose idle)."
    )


def test_added_affinity_applies_to_every_pod_of_the_profile() -> None:
    nodes = [
        make_node("a").label("pool", "batch").obj(),
        make_node("b").label("pool", "web").obj(),
    ]
    added = {
        **HEAD,
        "profiles": [
            {
                "pluginConfig": [
                    {
                        "name": "NodeAffinity",
                        "args": {
                            "addedAffinity": {
                                "requiredDuringSchedulingIgnoredDuringExecution": {
                                    "nodeSelectorTerms": [
                                        {
                                            "matchExpressions": [
                                                {"key": "pool", "operator": "In", "values": ["web"]}
                                            ]
                                        }
                                    ]
                                }
                            }
                        },
                    }
                ]
            }
        ],
    }
    got = analyze(nodes, _web(), scheduler_config=added)
    assert got.node == "b" and got.feasible_nodes == ["b"]
    (rejected,) = got.to_dict()["rejected_nodes"]
    assert rejected["reasons"] == ["node(s) didn't match scheduler-enforced node affinity"]


def test_the_sentence_names_the_real_reason() -> None:
    # Two profiles, RequestedToCapacityRatio among them, and a pod naming a third
    # scheduler: no profile schedules it, whatever the scoring.
    two = load_scheduler_config(
        {
            **HEAD,
            "profiles": [
                {
                    "schedulerName": "default-scheduler",
                    "pluginConfig": [
                        {
                            "name": "NodeResourcesFit",
                            "args": {
                                "scoringStrategy": {
                                    "type": "RequestedToCapacityRatio",
                                    "resources": [{"name": "cpu", "weight": 1}],
                                    "requestedToCapacityRatio": {
                                        "shape": [
                                            {"utilization": 0, "score": 10},
                                            {"utilization": 100, "score": 0},
                                        ]
                                    },
                                }
                            },
                        }
                    ],
                },
                {"schedulerName": "batch-scheduler"},
            ],
        }
    )
    third = _web("gpu-scheduler")
    ours = simulate(_two_nodes(), [third], scheduler_config=two).to_dict()
    default = simulate(_two_nodes(), [_web()]).to_dict()
    said = simulation_difference(ours, default, two.profiles[0])
    assert said.startswith("no profile of this scheduler schedules 1 pod (web-0: ")
    assert "gpu-scheduler" in said and "RequestedToCapacityRatio" not in said
    # The default profile ties between two empty nodes: no one node "would" be chosen.
    empty = [make_node(n).capacity(cpu="4", memory="8Gi").obj() for n in ("n1", "n2")]
    packed_config = preset_config("most-allocated")
    packed = analyze(empty, _web(), scheduler_config=packed_config)
    tied = analyze(empty, _web())
    assert tied.explanation.scores is not None and len(tied.explanation.scores.top) == 2
    ours_d = {**packed.to_dict(), "node": "n9"}  # as if the profile chose otherwise
    said = analysis_difference(
        ours_d,
        tied.to_dict(),
        packed_config.profiles[0],
        default_tie=tied.explanation.scores.top,
    )
    assert "the default profile ties between 2 nodes" in said
    assert "would choose" not in said
