"""A pod pickled at ingest (clusters.parsed) comes back with both its volumes and its
DRA claims, and one pickled before pods had claims reads every other value in place."""

from __future__ import annotations

import operator
import pickle
from typing import Any

from scheduling.engine.objects import Pod, _pod_from_slot_values

from .builders import make_pod


def _pod() -> Pod:
    obj = make_pod("trainer-0").req(cpu="1").obj()
    obj["spec"]["volumes"] = [
        {"name": "data", "persistentVolumeClaim": {"claimName": "data-trainer-0"}}
    ]
    obj["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "gpus-a100"}]
    return Pod.from_dict(obj)


def _fields(pod: Pod) -> dict[str, Any]:
    return {name: getattr(pod, name) for name in Pod.__slots__}


def test_a_pickled_pod_keeps_its_volumes_and_its_claims() -> None:
    pod = _pod()
    assert pod.volumes and pod.resource_claims
    again = pickle.loads(pickle.dumps(pod, protocol=5))
    assert _fields(again) == _fields(pod)


def test_a_pod_pickled_before_claims_reads_its_other_values_in_place() -> None:
    # The values as a pod was pickled before resource_claims existed: every other
    # slot, in the slots' order.
    pod = _pod()
    older = tuple(s for s in Pod.__slots__ if s != "resource_claims")
    loaded = _pod_from_slot_values(operator.attrgetter(*older)(pod))
    assert loaded.resource_claims == ()
    assert {s: getattr(loaded, s) for s in older} == {s: getattr(pod, s) for s in older}
