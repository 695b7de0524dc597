"""Dynamic Resource Allocation: the resource.k8s.io/v1 objects (``objects``), the
structured allocator (``allocator``) and CEL selectors (``cel``), which the
DynamicResources plugin reads. Only the objects are re-exported here: the CEL library
is imported when a selector is first evaluated."""

from .objects import (
    DeviceClass,
    DraObjects,
    PodClaim,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)

__all__ = [
    "DeviceClass",
    "DraObjects",
    "PodClaim",
    "ResourceClaim",
    "ResourceClaimTemplate",
    "ResourceSlice",
]
