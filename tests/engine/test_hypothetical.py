"""PriorityClasses a what-if carries, in effect for that run only.

The cluster of every test here is one node with 2 CPUs, full: the answer then turns
on priorities alone (a pending pod of higher priority than the running ones preempts
them, one of equal or lower priority stays unschedulable), which is worked out by
hand from the values below, not read from the engine.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from clusters.demo import demo_cat3_pod, demo_objects
from scheduling.engine import InvalidInput, analyze, load_cluster, simulate
from scheduling.engine.hypothetical import split_priority_classes, with_priority_classes
from scheduling.engine.workload import admit, expand_workload

from .builders import as_list, make_node, make_pod, make_priority_class


def _cluster(*classes: dict[str, Any], running_class: str = "batch") -> Any:
    """n1 (2 CPUs) runs ``a``: class ``running_class``, 2 CPUs, owned by ReplicaSet rs."""
    running = make_pod("a").priority_class(running_class).req(cpu="2").node("n1").uid("uid-a").obj()
    running["metadata"]["ownerReferences"] = [
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "name": "rs",
            "uid": "rs",
            "controller": True,
        }
    ]
    return load_cluster(
        as_list(
            make_node("n1").obj() | {"status": {"allocatable": {"cpu": "2", "pods": "110"}}},
            running,
            *classes,
        )
    )


BATCH = make_priority_class("batch", 1000)
APP = make_priority_class("app", 500)


def _pending(cls: str | None = None) -> dict[str, Any]:
    p = make_pod("p").req(cpu="1")
    return (p.priority_class(cls) if cls else p).obj()


def test_a_pod_may_name_a_class_only_the_whatif_defines() -> None:
    cluster = _cluster(BATCH)
    with pytest.raises(InvalidInput, match="no PriorityClass with name urgent"):
        analyze(cluster, _pending("urgent"))
    # 5000 > a's 1000: a goes.
    r = analyze(cluster, _pending("urgent"), priority_classes=[make_priority_class("urgent", 5000)])
    assert (r.priority, r.priority_class, r.outcome.value) == (5000, "urgent", "preempts")
    assert (r.node, r.victims) == ("n1", ["default/a"])
    assert r.to_dict()["hypothetical_classes"] == [
        {
            "name": "urgent",
            "value": 5000,
            "preemption_policy": "PreemptLowerPriority",
            "global_default": False,
            "replaces": None,
        }
    ]
    # 500 < 1000: nothing to preempt.
    low = analyze(
        cluster, _pending("urgent"), priority_classes=[make_priority_class("urgent", 500)]
    )
    assert (low.priority, low.outcome.value, low.victims) == (500, "unschedulable", [])


def test_a_new_value_for_a_snapshot_class_changes_the_pending_pod_and_the_answer() -> None:
    cluster = _cluster(BATCH, APP)
    assert analyze(cluster, _pending("app")).outcome.value == "unschedulable"  # 500 < 1000
    r = analyze(cluster, _pending("app"), priority_classes=[make_priority_class("app", 2000)])
    assert (r.priority, r.outcome.value, r.victims) == (2000, "preempts", ["default/a"])
    assert r.to_dict()["hypothetical_classes"][0]["replaces"] == 500
    never = analyze(
        cluster,
        _pending("app"),
        priority_classes=[make_priority_class("app", 2000, policy="Never")],
    )
    # The class's preemptionPolicy comes with it: higher, but may not preempt.
    assert (never.preemption_policy, never.eligible, never.outcome.value) == (
        "Never",
        False,
        "unschedulable",
    )


def test_the_running_pods_keep_the_priority_they_were_admitted_with() -> None:
    cluster = _cluster(BATCH, APP)
    # batch lowered to 10: a new batch pod would get 10, but a runs with 1000 still, so
    # an app pod (500) cannot preempt it.
    r = analyze(cluster, _pending("app"), priority_classes=[make_priority_class("batch", 10)])
    assert (r.priority, r.outcome.value) == (500, "unschedulable")


def test_a_hypothetical_global_default_applies_to_pods_without_a_class() -> None:
    cluster = _cluster(BATCH)
    assert analyze(cluster, _pending()).priority == 0  # no default in the snapshot
    r = analyze(
        cluster,
        _pending(),
        priority_classes=[make_priority_class("standard", 5000, global_default=True)],
    )
    assert (r.priority, r.priority_class, r.outcome.value) == (5000, "standard", "preempts")


def test_replacing_the_default_class_without_global_default_leaves_none() -> None:
    cluster = _cluster(make_priority_class("batch", 1000, global_default=True))
    assert analyze(cluster, _pending()).priority == 1000
    r = analyze(cluster, _pending(), priority_classes=[make_priority_class("batch", 1000)])
    assert (r.priority, r.priority_class) == (0, None)


@pytest.mark.parametrize(
    ("pc", "expected"),
    [
        (
            make_priority_class("huge", 1_000_000_001),
            "PriorityClass huge: value: Forbidden: maximum allowed value of a user defined "
            "priority is 1000000000",
        ),
        (make_priority_class("wide", 2**31), "PriorityClass wide: value: must fit in a 32-bit"),
        (
            make_priority_class("text", "5") | {"value": "5"},
            "PriorityClass text: value: must be an integer",
        ),
        (
            make_priority_class("system-cluster-critical", 2_000_000_000),
            "PriorityClass system-cluster-critical: metadata.name: Forbidden: "
            "system-cluster-critical is a built-in system class",
        ),
        (
            make_priority_class("system-mine", 10),
            "PriorityClass system-mine: metadata.name: Forbidden: priority class names with "
            "'system-' prefix are reserved",
        ),
        (make_priority_class("Upper", 10), "PriorityClass Upper: metadata.name: Invalid value"),
        (
            make_priority_class("x", 10, policy="Sometimes"),
            "PriorityClass x: preemptionPolicy: Unsupported value: 'Sometimes'",
        ),
        # The API server decodes these fields as Go's types: a string is no boolean.
        (
            make_priority_class("quoted", 10) | {"globalDefault": "false"},
            "PriorityClass quoted: globalDefault: Invalid value: 'false': must be a boolean",
        ),
        (
            make_priority_class("one", 10) | {"globalDefault": 1},
            "PriorityClass one: globalDefault: Invalid value: 1: must be a boolean",
        ),
        (
            make_priority_class("empty", 10) | {"preemptionPolicy": ""},
            "PriorityClass empty: preemptionPolicy: Unsupported value: ''",
        ),
        (
            make_priority_class("number", 10) | {"preemptionPolicy": 0},
            "PriorityClass number: preemptionPolicy: Unsupported value: 0",
        ),
        (
            make_priority_class("fraction", 10) | {"value": 10.5},
            "PriorityClass fraction: value: must be an integer",
        ),
    ],
)
def test_the_api_servers_refusals_name_the_object_and_the_field(
    pc: dict[str, Any], expected: str
) -> None:
    with pytest.raises(InvalidInput) as e:
        analyze(_cluster(BATCH), _pending(), priority_classes=[pc])
    assert str(e.value).startswith(expected)


def test_only_one_default_class_may_be_in_effect() -> None:
    snapshot_default = _cluster(make_priority_class("batch", 1000, global_default=True))
    with pytest.raises(InvalidInput) as e:
        analyze(
            snapshot_default,
            _pending(),
            priority_classes=[make_priority_class("standard", 10, global_default=True)],
        )
    assert str(e.value) == (
        "PriorityClass standard: globalDefault: Forbidden: PriorityClass batch (in the "
        "snapshot) is already marked as default. Only one default can exist"
    )
    with pytest.raises(InvalidInput, match=r"PriorityClass two: globalDefault: .*one \(in this"):
        analyze(
            _cluster(BATCH),
            _pending(),
            priority_classes=[
                make_priority_class("one", 10, global_default=True),
                make_priority_class("two", 20, global_default=True),
            ],
        )
    with pytest.raises(InvalidInput, match=r"PriorityClass app: metadata\.name: Duplicate"):
        analyze(_cluster(BATCH), _pending(), priority_classes=[APP, APP])
    # Moving the default to another class in one what-if is allowed: batch is replaced
    # by a batch that is no longer the default.
    moved = analyze(
        snapshot_default,
        _pending(),
        priority_classes=[
            make_priority_class("batch", 1000),
            make_priority_class("standard", 10, global_default=True),
        ],
    )
    assert (moved.priority, moved.priority_class) == (10, "standard")


def _state(cluster: Any) -> Any:
    return (
        sorted((n, c.value, c.global_default) for n, c in cluster.resolver.by_name.items()),
        [(c.name, c.value) for c in cluster.priority_classes],
        cluster.resolver.default,
        cluster.hypothetical_classes,
        [(p.key, p.priority, p.priority_class_name) for p in cluster.pods],
    )


def test_the_cluster_passed_in_is_not_changed() -> None:
    cluster = _cluster(BATCH, APP)
    before = copy.deepcopy(_state(cluster))
    first = analyze(cluster, _pending("app")).to_dict()
    classes = [make_priority_class("app", 2000), make_priority_class("new", 7, global_default=True)]
    analyze(cluster, _pending("app"), priority_classes=classes)
    simulate(cluster, [_pending("app")], priority_classes=classes, recreate_victims=True)
    view = with_priority_classes(cluster, classes)
    assert view is not cluster and view.resolver is not cluster.resolver
    assert _state(cluster) == before
    assert analyze(cluster, _pending("app")).to_dict() == first
    assert first["hypothetical_classes"] == []


def test_a_workload_is_admitted_and_simulated_with_the_whatif_classes() -> None:
    cluster = _cluster(BATCH)
    documents = [
        make_priority_class("urgent", 5000),
        _pending("urgent"),
    ]
    classes, objects = split_priority_classes(documents)
    assert [c["metadata"]["name"] for c in classes] == ["urgent"]
    workload = expand_workload(objects)
    admit(workload, with_priority_classes(cluster, classes).resolver)
    assert workload.pods[0]["spec"]["priority"] == 5000
    sim = simulate(cluster, workload.pods, priority_classes=classes).to_dict()
    assert [(p["pod"], p["priority"], p["final"], p["node"]) for p in sim["pods"]] == [
        ("default/p", 5000, "bound", "n1")
    ]
    assert sim["deleted_victims"] == ["default/a"]
    assert sim["hypothetical_classes"][0]["name"] == "urgent"
    assert simulate(cluster, []).to_dict()["hypothetical_classes"] == []


def test_a_recreated_victim_is_admitted_with_the_new_value_of_its_class() -> None:
    cluster = _cluster(BATCH, make_priority_class("urgent", 5000))
    # a (batch, 1000 when it was created) is preempted by p (5000); its ReplicaSet makes
    # it again, and the new pod's class batch is worth 3000 in this what-if.
    sim = simulate(
        cluster,
        [_pending("urgent")],
        recreate_victims=True,
        priority_classes=[make_priority_class("batch", 3000)],
    ).to_dict()
    assert sim["deleted_victims"] == ["default/a"]
    remade = [p for p in sim["pods"] if p["pod"] != "default/p"]
    assert [(p["priority"], p["priority_class"]) for p in remade] == [(3000, "batch")]
    plain = simulate(cluster, [_pending("urgent")], recreate_victims=True).to_dict()
    assert [p["priority"] for p in plain["pods"] if p["pod"] != "default/p"] == [1000]


@pytest.mark.parametrize("name", ["cat-1", "cat-2", "cat-3", "cluster-service"])
def test_giving_a_snapshot_class_again_as_it_is_changes_nothing_but_the_record(
    name: str,
) -> None:
    """The demo's own class, given again with its own value, description and default:
    the same admission, so the same answer; only hypothetical_classes says it was given."""
    objects = demo_objects()
    same = next(
        o
        for o in objects["items"]
        if o["kind"] == "PriorityClass" and o["metadata"]["name"] == name
    )
    cluster = load_cluster(objects)
    pod = demo_cat3_pod()
    plain = analyze(cluster, pod).to_dict()
    again = analyze(cluster, pod, priority_classes=[same]).to_dict()
    (record,) = again.pop("hypothetical_classes")
    assert {**again, "hypothetical_classes": []} == plain
    assert record["replaces"] == record["value"] == same["value"]
