"""The shape of the storage and DRA objects a snapshot keeps: each field kube-scheduler
reads has the type it must have, checked as the file is read, so a malformed
PersistentVolumeClaim or ResourceSlice is refused naming the file, the object and the
field (``snap.json: items[7] PersistentVolumeClaim db/data-0: spec.accessModes[0]: must
be a string``) instead of surprising a what-if later.

Only types and the values the API server would refuse are checked here; what the
fields mean is the engine's business.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from clusters.constants import (
    KIND_CSI_DRIVER,
    KIND_CSI_NODE,
    KIND_CSI_STORAGE_CAPACITY,
    KIND_DEVICE_CLASS,
    KIND_POD,
    KIND_PV,
    KIND_PVC,
    KIND_RESOURCE_CLAIM,
    KIND_RESOURCE_CLAIM_TEMPLATE,
    KIND_RESOURCE_SLICE,
    KIND_STORAGE_CLASS,
    KIND_VOLUME_ATTACHMENT,
)
from scheduling.engine.quantity import QuantityError, parse_quantity

# A check returns what is wrong with a value (None: nothing).
Check = Callable[[Any], str | None]


def _string(value: Any) -> str | None:
    return None if isinstance(value, str) else "must be a string"


def _boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else "must be true or false"


def _count(value: Any) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return None
    return "must be a whole number, 0 or more"


def _mapping(value: Any) -> str | None:
    return None if isinstance(value, dict) else "must be an object"


def _sequence(value: Any) -> str | None:
    return None if isinstance(value, list) else "must be a list"


def _quantity(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return "must be a quantity such as 10Gi"
    try:
        parse_quantity(value)
    except QuantityError as e:
        return str(e)
    return None


def _one_of(*allowed: str) -> Check:
    def check(value: Any) -> str | None:
        if value in allowed:
            return None
        return f"must be one of {', '.join(allowed)} (not {str(value)[:40]!r})"

    return check


_ACCESS_MODE = _one_of("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod")

# (path, check): "." between keys, "[]" for every item of a list; absent fields pass.
_NODE_SELECTOR: list[tuple[str, Check]] = [
    ("nodeSelectorTerms", _sequence),
    ("nodeSelectorTerms[]", _mapping),
    ("nodeSelectorTerms[].matchExpressions", _sequence),
    ("nodeSelectorTerms[].matchExpressions[].key", _string),
    ("nodeSelectorTerms[].matchExpressions[].values", _sequence),
    ("nodeSelectorTerms[].matchFields", _sequence),
]


def _under(prefix: str, checks: list[tuple[str, Check]]) -> list[tuple[str, Check]]:
    return [(f"{prefix}.{path}", check) for path, check in checks]


_DEVICE_REQUEST: list[tuple[str, Check]] = [
    ("deviceClassName", _string),
    ("allocationMode", _one_of("ExactCount", "All")),
    ("count", _count),
    ("selectors", _sequence),
    ("selectors[].cel.expression", _string),
    ("adminAccess", _boolean),
]
_CLAIM_SPEC: list[tuple[str, Check]] = [
    ("devices", _mapping),
    ("devices.requests", _sequence),
    ("devices.requests[]", _mapping),
    ("devices.requests[].name", _string),
    *_under("devices.requests[].exactly", _DEVICE_REQUEST),
    ("devices.requests[].firstAvailable", _sequence),
    ("devices.requests[].firstAvailable[].name", _string),
    *_under("devices.requests[].firstAvailable[]", _DEVICE_REQUEST),
    ("devices.constraints", _sequence),
    ("devices.constraints[].requests", _sequence),
    ("devices.constraints[].matchAttribute", _string),
]

CHECKS: dict[str, list[tuple[str, Check]]] = {
    KIND_PVC: [
        ("spec", _mapping),
        ("spec.volumeName", _string),
        ("spec.storageClassName", _string),
        ("spec.accessModes", _sequence),
        ("spec.accessModes[]", _ACCESS_MODE),
        ("spec.resources.requests.storage", _quantity),
        ("status.phase", _one_of("Pending", "Bound", "Lost")),
    ],
    KIND_PV: [
        ("spec", _mapping),
        ("spec.capacity.storage", _quantity),
        ("spec.accessModes", _sequence),
        ("spec.accessModes[]", _ACCESS_MODE),
        ("spec.storageClassName", _string),
        ("spec.claimRef", _mapping),
        ("spec.claimRef.name", _string),
        ("spec.claimRef.namespace", _string),
        *_under("spec.nodeAffinity.required", _NODE_SELECTOR),
        ("spec.csi.driver", _string),
        ("spec.csi.volumeHandle", _string),
        ("status.phase", _string),
    ],
    KIND_STORAGE_CLASS: [
        ("provisioner", _string),
        ("volumeBindingMode", _one_of("Immediate", "WaitForFirstConsumer")),
        ("allowedTopologies", _sequence),
        ("allowedTopologies[].matchLabelExpressions", _sequence),
        ("allowedTopologies[].matchLabelExpressions[].key", _string),
        ("allowedTopologies[].matchLabelExpressions[].values", _sequence),
        ("parameters", _mapping),
    ],
    KIND_CSI_NODE: [
        ("spec.drivers", _sequence),
        ("spec.drivers[]", _mapping),
        ("spec.drivers[].name", _string),
        ("spec.drivers[].nodeID", _string),
        ("spec.drivers[].allocatable.count", _count),
        ("spec.drivers[].topologyKeys", _sequence),
    ],
    KIND_CSI_DRIVER: [
        ("spec.storageCapacity", _boolean),
        ("spec.attachRequired", _boolean),
    ],
    KIND_VOLUME_ATTACHMENT: [
        ("spec.attacher", _string),
        ("spec.nodeName", _string),
        ("spec.source.persistentVolumeName", _string),
        ("status.attached", _boolean),
    ],
    KIND_CSI_STORAGE_CAPACITY: [
        ("storageClassName", _string),
        ("capacity", _quantity),
        ("maximumVolumeSize", _quantity),
        ("nodeTopology", _mapping),
    ],
    KIND_DEVICE_CLASS: [
        ("spec.selectors", _sequence),
        ("spec.selectors[].cel.expression", _string),
        ("spec.config", _sequence),
    ],
    KIND_RESOURCE_SLICE: [
        ("spec", _mapping),
        ("spec.driver", _string),
        ("spec.nodeName", _string),
        ("spec.allNodes", _boolean),
        ("spec.pool", _mapping),
        ("spec.pool.name", _string),
        ("spec.pool.generation", _count),
        ("spec.pool.resourceSliceCount", _count),
        ("spec.devices", _sequence),
        ("spec.devices[]", _mapping),
        ("spec.devices[].name", _string),
        ("spec.devices[].attributes", _mapping),
        ("spec.devices[].attributes.*", _mapping),
        ("spec.devices[].attributes.*.string", _string),
        ("spec.devices[].attributes.*.version", _string),
        ("spec.devices[].attributes.*.bool", _boolean),
        ("spec.devices[].capacity", _mapping),
        ("spec.devices[].capacity.*.value", _quantity),
    ],
    KIND_RESOURCE_CLAIM: [
        ("spec", _mapping),
        *_under("spec", _CLAIM_SPEC),
        ("status.allocation.devices.results", _sequence),
        ("status.allocation.devices.results[]", _mapping),
        ("status.allocation.devices.results[].request", _string),
        ("status.allocation.devices.results[].driver", _string),
        ("status.allocation.devices.results[].pool", _string),
        ("status.allocation.devices.results[].device", _string),
        *_under("status.allocation.nodeSelector", _NODE_SELECTOR),
        ("status.reservedFor", _sequence),
        ("status.reservedFor[]", _mapping),
        ("status.reservedFor[].name", _string),
        ("status.reservedFor[].resource", _string),
    ],
    KIND_RESOURCE_CLAIM_TEMPLATE: [
        ("spec", _mapping),
        ("spec.spec", _mapping),
        *_under("spec.spec", _CLAIM_SPEC),
    ],
    # A pod's references to them (the rest of a pod is the engine's to check).
    KIND_POD: [
        ("spec.volumes", _sequence),
        ("spec.volumes[]", _mapping),
        ("spec.volumes[].persistentVolumeClaim.claimName", _string),
        ("spec.resourceClaims", _sequence),
        ("spec.resourceClaims[]", _mapping),
        ("spec.resourceClaims[].name", _string),
        ("spec.resourceClaims[].resourceClaimName", _string),
        ("spec.resourceClaims[].resourceClaimTemplateName", _string),
        ("status.resourceClaimStatuses", _sequence),
        ("status.resourceClaimStatuses[].name", _string),
        ("status.resourceClaimStatuses[].resourceClaimName", _string),
    ],
}

# Fields the object means nothing without.
REQUIRED: dict[str, tuple[str, ...]] = {
    KIND_STORAGE_CLASS: ("provisioner",),
    KIND_CSI_STORAGE_CAPACITY: ("storageClassName",),
    KIND_RESOURCE_SLICE: ("spec.driver", "spec.pool.name"),
}


def _values(obj: Any, steps: tuple[tuple[str, bool], ...]) -> list[Any]:
    """Every value the steps reach; absent keys reach nothing. Level by level, without
    recursion or field paths: a pod's few volumes cost a few dict lookups."""
    reached = [obj]
    for key, many in steps:
        following: list[Any] = []
        for value in reached:
            if key == "*":
                if isinstance(value, dict):
                    following += value.values()
                continue
            if key:
                if not isinstance(value, dict) or key not in value:
                    continue
                value = value[key]
            if many:
                if isinstance(value, list):
                    following += value
            else:
                following.append(value)
        if not following:
            return following
        reached = following
    return reached


def _located(obj: Any, steps: tuple[tuple[str, bool], ...]) -> list[tuple[str, Any]]:
    """As _values, each with its field path (only once a value is known to be wrong)."""
    reached: list[tuple[str, Any]] = [("", obj)]
    for key, many in steps:
        following: list[tuple[str, Any]] = []
        for at, value in reached:
            if key == "*":
                if isinstance(value, dict):
                    following += [(f"{at}.{k}" if at else str(k), v) for k, v in value.items()]
                continue
            if key:
                if not isinstance(value, dict) or key not in value:
                    continue
                value, at = value[key], f"{at}.{key}" if at else key
            if many:
                if isinstance(value, list):
                    following += [(f"{at}[{i}]", item) for i, item in enumerate(value)]
            else:
                following.append((at, value))
        reached = following
    return reached


def _compiled(path: str) -> tuple[tuple[str, bool], ...]:
    """ "a.b[].c" as (("a", False), ("b", True), ("c", False))."""
    return tuple(
        (part[:-2], True) if part.endswith("[]") else (part, False) for part in path.split(".")
    )


_COMPILED = {
    kind: [(_compiled(path), check) for path, check in checks] for kind, checks in CHECKS.items()
}
_REQUIRED = {kind: [_compiled(path) for path in paths] for kind, paths in REQUIRED.items()}


def _plain_pod(pod: dict[str, Any]) -> bool:
    """A pod that names no claim (most of them: a service account's projected volume at
    most), told apart in a few lookups: 150,000 of them are read at once."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return True  # the engine says what is wrong with it
    if "resourceClaims" in spec or "resourceClaimStatuses" in (pod.get("status") or {}):
        return False
    volumes = spec.get("volumes")
    if volumes is None:
        return True
    return isinstance(volumes, list) and all(
        isinstance(v, dict) and "persistentVolumeClaim" not in v for v in volumes
    )


def shape_problem(obj: dict[str, Any]) -> tuple[str, str] | None:
    """(field, what is wrong) of the first malformed field the scheduler reads, or None."""
    kind = obj.get("kind")
    checks = _COMPILED.get(kind) if isinstance(kind, str) else None
    if checks is None or (kind == KIND_POD and _plain_pod(obj)):
        return None
    for path, steps in zip(REQUIRED.get(str(kind), ()), _REQUIRED.get(str(kind), ()), strict=True):
        if not _values(obj, steps):
            return path, "is required"
    for steps, check in checks:
        # A null reads as the field left out, as the API server's decoder takes it.
        if all(value is None or check(value) is None for value in _values(obj, steps)):
            continue
        for field, value in _located(obj, steps):
            problem = None if value is None else check(value)
            if problem is not None:
                return field, problem
    return None
