"""The PriorityClass ladder: every class in kubectl's order with what uses it."""

from __future__ import annotations

import json
from typing import Any

from scheduling.engine import load_cluster
from scheduling.engine.plan import plan_ladder

from ..builders import make_node, make_pdb, make_pod, make_priority_class
from .helpers import deployment_pod, replica


def _cluster() -> list[dict[str, Any]]:
    return [
        make_priority_class("zeta", 100, global_default=True),
        make_priority_class("alpha", 5000),
        make_priority_class("idle", 42),
        make_node("n1").capacity(cpu="4", memory="8Gi").obj(),
        make_node("n2").capacity(cpu="4", memory="8Gi").obj(),
        # Cordoned: its room is not counted.
        make_node("n3").capacity(cpu="64", memory="256Gi").unschedulable().obj(),
        deployment_pod(
            replica("web", 0).node("n1").priority_class("alpha").req(cpu="1", memory="1Gi"), "web"
        ),
        deployment_pod(
            replica("web", 1).node("n2").priority_class("alpha").req(cpu="1", memory="1Gi"), "web"
        ),
        make_pod("api-0", "shop")
        .node("n1")
        .priority_class("alpha")
        .label("app", "api")
        .req(cpu="500m")
        .obj(),
        # Pending: counted, and said to be pending.
        make_pod("api-1", "shop").priority_class("alpha").label("app", "api").req(cpu="500m").obj(),
        # Given the globalDefault at load: counted in zeta and among the unclassed.
        make_pod("bare").node("n2").req(cpu="2", memory="2Gi").obj(),
        make_pod("legacy").node("n2").priority(0).obj(),
        make_pod("ghost-0").node("n2").priority_class("ghost").priority(300).obj(),
        make_pod("ghost-1").node("n2").priority_class("ghost").obj(),
        # Finished: holds nothing, counted nowhere.
        {
            **make_pod("done").node("n1").priority_class("alpha").obj(),
            "status": {"phase": "Succeeded"},
        },
        make_pdb("web-pdb", match_labels={"app": "web"}, disruptions_allowed=0),
        make_pdb("api-pdb", "shop", match_labels={"app": "api"}, disruptions_allowed=1),
        {
            "kind": "ResourceQuota",
            "metadata": {"name": "alpha-only", "namespace": "shop"},
            "spec": {
                "hard": {"pods": "4"},
                "scopeSelector": {
                    "matchExpressions": [
                        {"scopeName": "PriorityClass", "operator": "In", "values": ["alpha"]}
                    ]
                },
            },
        },
        {
            "kind": "ResourceQuota",
            "metadata": {"name": "plain", "namespace": "shop"},
            "spec": {"hard": {"pods": "9"}},
        },
    ]


def test_classes_in_kubectl_order_with_the_system_ones() -> None:
    ladder = plan_ladder(load_cluster(_cluster()))
    assert [c.name for c in ladder.classes] == [
        "alpha",
        "idle",
        "system-cluster-critical",
        "system-node-critical",
        "zeta",
    ]
    system = ladder.rung("system-node-critical")
    assert system.builtin and system.value == 2_000_001_000 and system.pods == 0
    assert not ladder.rung("alpha").builtin


def test_what_uses_a_class() -> None:
    alpha = plan_ladder(load_cluster(_cluster())).rung("alpha")
    assert (alpha.pods, alpha.pending_pods, alpha.apps) == (4, 1, 3)
    # 1 + 1 + 0.5 + 0.5 cpu; 2 GiB.
    assert (alpha.cpu_millis, alpha.memory_bytes) == (3000, 2 * 2**30)
    # Schedulable room: n1 and n2, 8 cpu and 16 GiB.
    assert alpha.cpu_share == 3000 / 8000 and alpha.memory_share == 2 / 16
    assert alpha.namespaces == ("default", "shop")
    # Three apps: the web Deployment and the two api pods, each its own app with no owner.
    # Every one is covered; web's budget is at 0 allowed disruptions.
    assert (alpha.budgets.apps_covered, alpha.budgets.pods_covered) == (3, 4)
    assert alpha.budgets.blocking_pdbs == ("PodDisruptionBudget default/web-pdb",)
    # The PriorityClass-scoped quota counts; the plain one does not.
    assert alpha.quotas == ("ResourceQuota shop/alpha-only",)
    assert alpha.global_default is False and alpha.preemption_policy == "PreemptLowerPriority"


def test_the_default_unclassed_and_missing() -> None:
    ladder = plan_ladder(load_cluster(_cluster()))
    zeta = ladder.rung("zeta")
    assert zeta.global_default and (zeta.pods, zeta.cpu_millis) == (1, 2000)
    assert ladder.rung("idle").pods == 0
    # "bare" resolved to the default; "legacy" named no class and kept priority 0.
    assert [(u.priority, u.resolved_class, u.pods, u.apps) for u in ladder.unclassed] == [
        (100, "zeta", 1, 1),
        (0, None, 1, 1),
    ]
    (ghost,) = ladder.missing
    # ghost-1 has no spec.priority: assumed at the default's 100.
    assert (ghost.class_name, ghost.pods, ghost.priorities, ghost.assumed) == (
        "ghost",
        2,
        (300, 100),
        1,
    )


def test_the_ladder_is_plain_json() -> None:
    data = plan_ladder(load_cluster(_cluster())).to_dict()
    assert json.loads(json.dumps(data)) == data
    first = data["classes"][0]  # type: ignore[index]
    assert first["name"] == "alpha" and first["budgets"]["blocking_pdbs"] == [
        "PodDisruptionBudget default/web-pdb"
    ]
    assert data["allocatable_cpu_millis"] == 8000
