"""Two capacity answers compared, on hand-written answers: each expected sentence and
count below was worked out by hand from the two answers it compares."""

from __future__ import annotations

from typing import Any

from planning.compare_capacity import BY_CLASS, REPLICAS, capacity_answer, compare_capacity
from scheduling.engine.capacity import Capacity, RoomByClass

GI = 2**30


def replicas(
    fit_now: int,
    by_preempting: int,
    victims: int,
    *,
    limit: int = 20,
    cpu: int = 2000,
    memory: int = 4 * GI,
    priority_class: str | None = "cat-3",
    priority: int = 30000,
) -> Capacity:
    """An answer for replicas of one pod: ``victims`` cat-1 pods deleted, no budget."""
    placed = fit_now + by_preempting
    return Capacity.from_dict(
        {
            "template": {
                "pod": "default/orange-0",
                "priority": priority,
                "priority_class": priority_class,
                "preemption_policy": "PreemptLowerPriority",
                "requests": {"cpu": cpu, "memory": memory},
            },
            "limit": limit,
            "fit_now": fit_now,
            "fit_by_preempting": by_preempting,
            "unplaced": limit - placed,
            "stop_reason": "no-progress-after-flush" if placed < limit else "queue-empty",
            "cycles": limit,
            "curve": [],
            "victims": [
                {
                    "pod": f"default/blue-{i}",
                    "priority": 10000,
                    "priority_class": "cat-1",
                    "app": "default/blue",
                    "node": "node-1",
                    "cycle": i + 1,
                    "preemptor": "default/orange-0-x",
                    "pdbs": [],
                }
                for i in range(victims)
            ],
            "victim_classes": ["cat-1"] if victims else [],
            "pdb_budgets": {},
        }
    )


def row(name: str, value: int, now: int, by: int, victims: int, *, limit: int = 20) -> Any:
    return {
        "priority_class": name,
        "value": value,
        "preemption_policy": "PreemptLowerPriority",
        "fit_now": now,
        "fit_by_preempting": by,
        "unplaced": limit - now - by,
        "victims_total": victims,
        "victims_by_class": {"cat-1": victims} if victims else {},
        "apps_hit": 1 if victims else 0,
        "pdbs_exceeded": 0,
    }


def table(*rows: Any, cpu: str = "2", memory: str = "4Gi", limit: int = 20) -> RoomByClass:
    return RoomByClass.from_dict(
        {"size": {"cpu": cpu, "memory": memory}, "limit": limit, "classes": list(rows)}
    )


def test_more_replicas_fit_and_cost_more_victims() -> None:
    a = capacity_answer(replicas(12, 0, 5), analysis=1)
    b = capacity_answer(replicas(12, 4, 8), analysis=2)
    c = compare_capacity(a, b)
    assert (
        c.sentence
        == "B fits 4 more replicas of 2 CPU / 4Gi than A (12 → 16); 3 more victims (5 → 8)."
    )
    assert not c.same
    d = c.to_dict()
    assert d["kind"] == "capacity"
    assert (d["a"]["form"], d["a"]["size"]) == (REPLICAS, {"cpu": "2", "memory": "4Gi"})
    (cls,) = d["classes"]
    assert cls["priority_class"] == "cat-3"
    assert (cls["replicas_change"], cls["victims_change"]) == (4, 3)
    assert (cls["a"]["placed"], cls["b"]["placed"], cls["b"]["fit_by_preempting"]) == (12, 16, 4)


def test_fewer_replicas_and_fewer_victims() -> None:
    c = compare_capacity(capacity_answer(replicas(3, 6, 6)), capacity_answer(replicas(3, 5, 1)))
    assert (
        c.sentence
        == "B fits 1 fewer replica of 2 CPU / 4Gi than A (9 → 8); 5 fewer victims (6 → 1)."
    )


def test_the_same_room_says_so_and_a_count_at_the_limit_is_a_floor() -> None:
    same = compare_capacity(capacity_answer(replicas(2, 3, 4)), capacity_answer(replicas(2, 3, 4)))
    assert same.same
    assert same.sentence == (
        "Both fit 5 replicas of 2 CPU / 4Gi (2 as the cluster stands), preempting 4 pods: "
        "same answer."
    )
    # 20 of 20 placed: the limit stopped the run, not the room.
    capped = compare_capacity(
        capacity_answer(replicas(12, 0, 0)), capacity_answer(replicas(20, 0, 0))
    )
    assert capped.sentence == (
        "B fits 8 more replicas of 2 CPU / 4Gi than A (12 → 20); no victims in either "
        "(B placed all 20 asked for: there may be more room)."
    )


def test_two_classes_of_the_same_size_are_named() -> None:
    a = capacity_answer(replicas(4, 2, 2, priority_class="cat-2", priority=20000))
    b = capacity_answer(replicas(4, 6, 9))
    assert compare_capacity(a, b).sentence == (
        "B (cat-3) fits 4 more replicas of 2 CPU / 4Gi than A (cat-2) (6 → 10); "
        "7 more victims (2 → 9)."
    )


def test_two_sizes_put_the_size_beside_each_count() -> None:
    a = capacity_answer(replicas(10, 0, 0, cpu=1000, memory=2 * GI))
    b = capacity_answer(replicas(5, 0, 0))
    assert compare_capacity(a, b).sentence == (
        "B fits 5 fewer replicas than A (10 of 1 CPU / 2Gi → 5 of 2 CPU / 4Gi); "
        "no victims in either."
    )


def test_the_room_per_tier_after_a_new_class_leads_with_the_new_class() -> None:
    before = table(row("cat-2", 20000, 3, 4, 5), row("cat-1", 10000, 3, 0, 0))
    after = table(
        row("cat-3", 30000, 3, 9, 12), row("cat-2", 20000, 3, 4, 5), row("cat-1", 10000, 3, 0, 0)
    )
    a, b = capacity_answer(before, analysis=1), capacity_answer(after, analysis=2)
    assert (a.form, b.form) == (BY_CLASS, BY_CLASS)
    c = compare_capacity(a, b)
    assert c.sentence == (
        "B adds cat-3: 12 replicas of 2 CPU / 4Gi fit, preempting 12 pods; "
        "the other 2 classes are unchanged."
    )
    assert [r.priority_class for r in c.rows] == ["cat-3", "cat-2", "cat-1"]
    assert [r.differs for r in c.rows] == [True, False, False]
    assert c.to_dict()["classes"][0]["a"] is None


def test_the_room_per_tier_leads_with_the_class_that_changed_most() -> None:
    a = table(
        row("cat-3", 30000, 2, 8, 9), row("cat-2", 20000, 2, 3, 3), row("cat-1", 10000, 2, 0, 0)
    )
    b = table(
        row("cat-3", 30000, 2, 9, 11), row("cat-2", 20000, 2, 7, 8), row("cat-1", 10000, 2, 0, 0)
    )
    c = compare_capacity(capacity_answer(a), capacity_answer(b))
    assert c.sentence == (
        "In cat-2, B fits 4 more replicas of 2 CPU / 4Gi than A (5 → 9); 5 more victims (3 → 8); "
        "1 more class differs."
    )
    same = compare_capacity(capacity_answer(a), capacity_answer(a))
    assert same.same
    assert (
        same.sentence
        == "Every class has the same room for 2 CPU / 4Gi in A and B (3 classes): same answer."
    )


def test_one_pods_replicas_against_a_table_compare_its_class_alone() -> None:
    pod = capacity_answer(replicas(2, 6, 7))
    rooms = capacity_answer(table(row("cat-3", 30000, 2, 8, 9), row("cat-1", 10000, 2, 0, 0)))
    c = compare_capacity(pod, rooms)
    assert [r.priority_class for r in c.rows] == ["cat-3"]
    assert c.sentence == (
        "In cat-3, B fits 2 more replicas of 2 CPU / 4Gi than A (8 → 10); 2 more victims (7 → 9)."
    )


def test_a_class_b_lacks_says_what_a_had() -> None:
    a = table(row("cat-0", 5000, 5, 0, 0), row("cat-1", 10000, 3, 0, 0))
    b = table(row("cat-1", 10000, 3, 0, 0))
    c = compare_capacity(capacity_answer(a), capacity_answer(b))
    assert c.sentence == (
        "B has no cat-0 (in A, 5 replicas of 2 CPU / 4Gi fit, without preempting); "
        "the other class is unchanged."
    )
    # Highest priority first: cat-1 (10000), then cat-0 (5000).
    classes = c.to_dict()["classes"]
    assert [x["priority_class"] for x in classes] == ["cat-1", "cat-0"]
    assert classes[1]["b"] is None and classes[1]["replicas_change"] == -5
