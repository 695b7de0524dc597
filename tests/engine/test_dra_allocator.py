"""The structured allocator on one node, by hand: counts, matchAttribute, firstAvailable,
allocation mode All, devices taken by other claims, and backtracking across claims."""

from __future__ import annotations

from typing import Any

from scheduling.engine.dra.allocator import allocate
from scheduling.engine.dra.objects import DeviceClass, ResourceClaim, ResourceSlice

DRIVER = "gpu.nvidia.com"
GPU = DeviceClass("gpu", (f"device.driver == '{DRIVER}'",))


def _devices(*roots: str) -> list[Any]:
    """One device per entry, gpu-0..., on the PCIe root given."""
    return list(
        ResourceSlice.from_dict(
            {
                "metadata": {"name": "s"},
                "spec": {
                    "driver": DRIVER,
                    "nodeName": "n",
                    "pool": {"name": "n"},
                    "devices": [
                        {
                            "name": f"gpu-{i}",
                            "attributes": {
                                "resource.kubernetes.io/pcieRoot": {"string": root},
                                "index": {"int": i},
                            },
                        }
                        for i, root in enumerate(roots)
                    ],
                },
            }
        ).devices
    )


def _claim(name: str, *requests: dict[str, Any], constraints: Any = None) -> ResourceClaim:
    devices: dict[str, Any] = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = constraints
    return ResourceClaim.from_dict(
        {"metadata": {"name": name, "namespace": "ns"}, "spec": {"devices": devices}}
    )


def _exact(count: int, name: str = "gpu", **extra: Any) -> dict[str, Any]:
    return {"name": name, "exactly": {"deviceClassName": "gpu", "count": count, **extra}}


def _picked(found: Any) -> list[list[str]]:
    return [[r.device for r in a.results] for a in found]


def test_the_first_devices_in_order() -> None:
    found = allocate([_claim("c", _exact(2))], {"gpu": GPU}, _devices("a", "a", "b"), set())
    assert _picked(found) == [["gpu-0", "gpu-1"]]


def test_devices_of_other_claims_are_taken() -> None:
    devices = _devices("a", "a", "b")
    found = allocate([_claim("c", _exact(2))], {"gpu": GPU}, devices, {devices[0].id})
    assert _picked(found) == [["gpu-1", "gpu-2"]]
    assert allocate([_claim("c", _exact(3))], {"gpu": GPU}, devices, {devices[0].id}) is None


def test_match_attribute_finds_two_on_one_root() -> None:
    same_root = [{"matchAttribute": "resource.kubernetes.io/pcieRoot"}]
    claim = _claim("c", _exact(2), constraints=same_root)
    found = allocate([claim], {"gpu": GPU}, _devices("a", "b", "c", "b"), set())
    assert _picked(found) == [["gpu-1", "gpu-3"]]
    assert allocate([claim], {"gpu": GPU}, _devices("a", "b", "c"), set()) is None


def test_first_available_takes_the_first_sub_request_that_fits() -> None:
    request = {
        "name": "gpu",
        "firstAvailable": [
            {"name": "four", "deviceClassName": "gpu", "count": 4},
            {"name": "two", "deviceClassName": "gpu", "count": 2},
        ],
    }
    found = allocate([_claim("c", request)], {"gpu": GPU}, _devices("a", "a", "a"), set())
    assert found is not None
    assert [r.request for r in found[0].results] == ["gpu/two", "gpu/two"]


def test_allocation_mode_all_wants_every_matching_device_free() -> None:
    claim = _claim(
        "c", {"name": "gpu", "exactly": {"deviceClassName": "gpu", "allocationMode": "All"}}
    )
    devices = _devices("a", "b")
    assert _picked(allocate([claim], {"gpu": GPU}, devices, set())) == [["gpu-0", "gpu-1"]]
    assert allocate([claim], {"gpu": GPU}, devices, {devices[1].id}) is None


def test_claims_of_one_pod_backtrack_into_each_other() -> None:
    # The first claim takes any one GPU; the second needs two on one root: the first
    # must leave root "b" whole, which it does only by backtracking from gpu-1.
    anywhere = _claim(
        "first",
        _exact(
            1, selectors=[{"cel": {"expression": "device.attributes['gpu.nvidia.com'].index >= 1"}}]
        ),
    )
    together = _claim(
        "second", _exact(2), constraints=[{"matchAttribute": "resource.kubernetes.io/pcieRoot"}]
    )
    found = allocate([anywhere, together], {"gpu": GPU}, _devices("a", "b", "b", "c"), set())
    assert _picked(found) == [["gpu-3"], ["gpu-1", "gpu-2"]]
