"""How many fit, under a scheduler configuration: the replicas run through the loop of
that profile (no DefaultPreemption: none placed by preempting)."""

from __future__ import annotations

from clusters.demo import demo_cat3_pod, demo_objects
from scheduling.engine.capacity import capacity, capacity_by_class

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


def test_without_preemption_no_replica_is_placed_by_preempting() -> None:
    default = capacity(demo_objects(), demo_cat3_pod(), limit=20)
    assert (default.fit_now, default.fit_by_preempting) == (0, 14)
    under = capacity(demo_objects(), demo_cat3_pod(), limit=20, scheduler_config=NO_PREEMPTION)
    assert (under.fit_now, under.fit_by_preempting, len(under.victims)) == (0, 0, 0)


def test_room_per_tier_takes_the_configuration_too() -> None:
    table = capacity_by_class(
        demo_objects(), "1", "2Gi", limit=5, scheduler_config=NO_PREEMPTION
    ).to_dict()
    default = capacity_by_class(demo_objects(), "1", "2Gi", limit=5).to_dict()
    assert table != default
    assert all(row["fit_by_preempting"] == row["fit_now"] for row in table["classes"])
