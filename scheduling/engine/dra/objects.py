"""resource.k8s.io/v1 objects as the DynamicResources plugin reads them: DeviceClass,
ResourceSlice (its devices), ResourceClaim, ResourceClaimTemplate; and a pod's
spec.resourceClaims with the names the resourceclaim controller recorded for them.

Each is parsed once at load (``InvalidInput`` naming the field; the loader adds the
item). Claims are immutable: a simulation that allocates or deallocates one replaces
it (``with_allocation`` / ``without_allocation``) in its own claim map.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from ..errors import InvalidInput
from ..fields import list_of as _l
from ..fields import mapping as _m
from ..labels import NodeSelector
from ..quantity import QuantityError, parse_quantity

# resourceapi.Finalizer: what the scheduler puts on a claim it allocates.
FINALIZER = "resource.kubernetes.io/delete-protection"
# ResourceClaimReservedForMaxSize: beyond this many consumers a claim cannot be reserved.
RESERVED_FOR_MAX_SIZE = 256
# FirstAvailableDeviceRequestMaxSize: the score of sub-request i is this minus i.
FIRST_AVAILABLE_MAX_SIZE = 8
EXACT_COUNT = "ExactCount"
ALL = "All"

# A device attribute's value: string, int, bool or a semantic version (kept as text,
# typed by ``AttrValue.kind``).


@dataclass(frozen=True, slots=True)
class AttrValue:
    kind: str  # "string" | "int" | "bool" | "version"
    value: str | int | bool


DeviceId = tuple[str, str, str]  # (driver, pool, device)


def _s(raw: Any, where: str, required: bool = True) -> str:
    if raw is None or raw == "":
        if required:
            raise InvalidInput("is required", field=where)
        return ""
    if not isinstance(raw, str):
        raise InvalidInput("must be a string", field=where)
    return raw


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return _m(obj.get("metadata"), "metadata")


@dataclass(frozen=True, slots=True)
class Device:
    """One device of a ResourceSlice, with where it is available."""

    driver: str
    pool: str
    name: str
    attributes: Mapping[str, AttrValue]
    capacity: Mapping[str, Fraction]
    node_name: str | None  # the slice's spec.nodeName: local to that node
    node_selector: NodeSelector | None = None  # spec.nodeSelector: nodes it may serve
    all_nodes: bool = False

    @property
    def id(self) -> DeviceId:
        return (self.driver, self.pool, self.name)

    def available_on(self, node_name: str, labels: Mapping[str, str]) -> bool:
        if self.node_name is not None:
            return self.node_name == node_name
        if self.all_nodes:
            return True
        return self.node_selector is not None and self.node_selector.matches(labels, node_name)

    def attribute(self, qualified: str) -> AttrValue | None:
        """lookupAttribute: the fully qualified name, or its short form when its domain
        is the device's driver."""
        got = self.attributes.get(qualified)
        if got is not None:
            return got
        domain, sep, short = qualified.partition("/")
        if not sep or domain != self.driver:
            return None
        return self.attributes.get(short)


def _attr_value(raw: Any, where: str) -> AttrValue:
    raw = _m(raw, where)
    set_fields = [k for k in ("string", "int", "bool", "version") if raw.get(k) is not None]
    if len(set_fields) != 1:
        raise InvalidInput("exactly one of string, int, bool or version is required", field=where)
    kind = set_fields[0]
    v = raw[kind]
    if kind == "int" and (isinstance(v, bool) or not isinstance(v, int)):
        raise InvalidInput("must be an integer", field=f"{where}.int")
    if kind == "bool" and not isinstance(v, bool):
        raise InvalidInput("must be a boolean", field=f"{where}.bool")
    if kind in ("string", "version") and not isinstance(v, str):
        raise InvalidInput("must be a string", field=f"{where}.{kind}")
    return AttrValue(kind, v)


@dataclass(frozen=True, slots=True)
class ResourceSlice:
    name: str
    driver: str
    pool: str
    generation: int
    slice_count: int
    devices: tuple[Device, ...]

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> ResourceSlice:
        meta = _meta(obj)
        spec = _m(obj.get("spec"), "spec")
        driver = _s(spec.get("driver"), "spec.driver")
        pool = _m(spec.get("pool"), "spec.pool")
        pool_name = _s(pool.get("name"), "spec.pool.name")
        generation = pool.get("generation") or 0
        count = pool.get("resourceSliceCount") or 1
        if not isinstance(generation, int) or not isinstance(count, int):
            raise InvalidInput("must be integers", field="spec.pool")
        node_name = spec.get("nodeName") or None
        if node_name is not None and not isinstance(node_name, str):
            raise InvalidInput("must be a string", field="spec.nodeName")
        selector = None
        if spec.get("nodeSelector") is not None:
            selector = NodeSelector.parse(spec["nodeSelector"], "spec.nodeSelector")
        all_nodes = bool(spec.get("allNodes"))
        devices: list[Device] = []
        for i, raw in enumerate(_l(spec.get("devices"), "spec.devices")):
            where = f"spec.devices[{i}]"
            d = _m(raw, where)
            attrs = {
                str(k): _attr_value(v, f"{where}.attributes[{k}]")
                for k, v in _m(d.get("attributes"), f"{where}.attributes").items()
            }
            capacity: dict[str, Fraction] = {}
            for k, v in _m(d.get("capacity"), f"{where}.capacity").items():
                cw = f"{where}.capacity[{k}].value"
                try:
                    capacity[str(k)] = parse_quantity(_m(v, cw).get("value"))
                except QuantityError as e:
                    raise InvalidInput(str(e), field=cw) from None
            devices.append(
                Device(
                    driver,
                    pool_name,
                    _s(d.get("name"), f"{where}.name"),
                    attrs,
                    capacity,
                    node_name,
                    selector,
                    all_nodes,
                )
            )
        return cls(
            _s(meta.get("name"), "metadata.name"),
            driver,
            pool_name,
            generation,
            count,
            tuple(devices),
        )


@dataclass(frozen=True, slots=True)
class DeviceClass:
    name: str
    selectors: tuple[str, ...]  # CEL expressions

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> DeviceClass:
        spec = _m(obj.get("spec"), "spec")
        return cls(
            _s(_meta(obj).get("name"), "metadata.name"),
            _selectors(spec.get("selectors"), "spec.selectors"),
        )


def _selectors(raw: Any, where: str) -> tuple[str, ...]:
    out: list[str] = []
    for i, s in enumerate(_l(raw, where)):
        cel = _m(_m(s, f"{where}[{i}]").get("cel"), f"{where}[{i}].cel")
        out.append(_s(cel.get("expression"), f"{where}[{i}].cel.expression"))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class ExactRequest:
    """A request's (or a sub-request's) device class, selectors and count."""

    name: str  # "gpu", or "gpu/h100" for a sub-request
    device_class: str
    mode: str
    count: int
    selectors: tuple[str, ...]

    @classmethod
    def parse(cls, name: str, raw: Mapping[str, Any], where: str) -> ExactRequest:
        mode = raw.get("allocationMode") or EXACT_COUNT
        if mode not in (EXACT_COUNT, ALL):
            raise InvalidInput(f"unsupported value {mode!r}", field=f"{where}.allocationMode")
        count = raw.get("count", 1) if mode == EXACT_COUNT else 0
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InvalidInput("must be a positive integer", field=f"{where}.count")
        return cls(
            name,
            _s(raw.get("deviceClassName"), f"{where}.deviceClassName", required=False),
            mode,
            count,
            _selectors(raw.get("selectors"), f"{where}.selectors"),
        )


def exact_dict(req: ExactRequest) -> dict[str, Any]:
    """The request (or sub-request) as the API writes it, its name left out."""
    out: dict[str, Any] = {"deviceClassName": req.device_class, "allocationMode": req.mode}
    if req.mode == EXACT_COUNT:
        out["count"] = req.count
    if req.selectors:
        out["selectors"] = [{"cel": {"expression": e}} for e in req.selectors]
    return out


@dataclass(frozen=True, slots=True)
class DeviceRequest:
    """spec.devices.requests[]: ``exactly`` or ``first_available`` (tried in order)."""

    name: str
    exactly: ExactRequest | None
    first_available: tuple[ExactRequest, ...] = ()

    @property
    def alternatives(self) -> tuple[ExactRequest, ...]:
        return self.first_available if self.exactly is None else (self.exactly,)

    def to_dict(self) -> dict[str, Any]:
        if self.exactly is not None:
            return {"name": self.name, "exactly": exact_dict(self.exactly)}
        return {
            "name": self.name,
            "firstAvailable": [
                {"name": sub.name.split("/", 1)[1], **exact_dict(sub)}
                for sub in self.first_available
            ],
        }


@dataclass(frozen=True, slots=True)
class Constraint:
    requests: tuple[str, ...]  # empty: every request of the claim
    match_attribute: str | None

    def applies_to(self, request: str) -> bool:
        """A constraint naming a request applies to its sub-requests too."""
        return not self.requests or request.split("/", 1)[0] in self.requests


@dataclass(frozen=True, slots=True)
class ClaimSpec:
    requests: tuple[DeviceRequest, ...]
    constraints: tuple[Constraint, ...]

    @classmethod
    def parse(cls, raw: Any, where: str) -> ClaimSpec:
        devices = _m(_m(raw, where).get("devices"), f"{where}.devices")
        requests: list[DeviceRequest] = []
        for i, r in enumerate(_l(devices.get("requests"), f"{where}.devices.requests")):
            rw = f"{where}.devices.requests[{i}]"
            r = _m(r, rw)
            name = _s(r.get("name"), f"{rw}.name")
            if r.get("exactly") is not None:
                requests.append(
                    DeviceRequest(
                        name, ExactRequest.parse(name, _m(r["exactly"], rw), f"{rw}.exactly")
                    )
                )
            elif r.get("firstAvailable"):
                subs = []
                for j, s in enumerate(_l(r["firstAvailable"], f"{rw}.firstAvailable")):
                    sw = f"{rw}.firstAvailable[{j}]"
                    s = _m(s, sw)
                    sub = _s(s.get("name"), f"{sw}.name")
                    subs.append(ExactRequest.parse(f"{name}/{sub}", s, sw))
                requests.append(DeviceRequest(name, None, tuple(subs)))
            else:
                raise InvalidInput("exactly or firstAvailable is required", field=rw)
        constraints: list[Constraint] = []
        for i, c in enumerate(_l(devices.get("constraints"), f"{where}.devices.constraints")):
            cw = f"{where}.devices.constraints[{i}]"
            c = _m(c, cw)
            match = c.get("matchAttribute")
            constraints.append(
                Constraint(
                    tuple(str(x) for x in _l(c.get("requests"), f"{cw}.requests")),
                    str(match) if match else None,
                )
            )
        return cls(tuple(requests), tuple(constraints))


def claim_spec_dict(spec: ClaimSpec) -> dict[str, Any]:
    devices: dict[str, Any] = {"requests": [r.to_dict() for r in spec.requests]}
    if spec.constraints:
        devices["constraints"] = [
            {
                **({"requests": list(c.requests)} if c.requests else {}),
                **({"matchAttribute": c.match_attribute} if c.match_attribute else {}),
            }
            for c in spec.constraints
        ]
    return {"devices": devices}


@dataclass(frozen=True, slots=True)
class AllocationResult:
    request: str
    driver: str
    pool: str
    device: str

    @property
    def device_id(self) -> DeviceId:
        return (self.driver, self.pool, self.device)


@dataclass(frozen=True, slots=True)
class Allocation:
    results: tuple[AllocationResult, ...]
    node_selector: NodeSelector | None
    # The node the selector names (matchFields metadata.name In [node]), for the words.
    node: str | None = None


@dataclass(frozen=True, slots=True)
class Consumer:
    name: str
    uid: str


@dataclass(frozen=True, slots=True)
class ResourceClaim:
    namespace: str
    name: str
    uid: str
    spec: ClaimSpec
    deleting: bool = False
    allocation: Allocation | None = None
    reserved_for: tuple[Consumer, ...] = ()
    # The controlling owner (kind, name, uid): a pod, for a claim made from a template.
    owner: tuple[str, str, str] | None = None
    finalizers: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def reserved_for_pod(self, uid: str) -> bool:
        return any(c.uid == uid for c in self.reserved_for)

    def with_allocation(self, allocation: Allocation, pod_name: str, pod_uid: str) -> ResourceClaim:
        """Reserve + PreBind: allocated (when it was not) and reserved for the pod."""
        reserved = self.reserved_for
        if not self.reserved_for_pod(pod_uid):
            reserved = (*reserved, Consumer(pod_name, pod_uid))
        finalizers = (
            self.finalizers if FINALIZER in self.finalizers else (*self.finalizers, FINALIZER)
        )
        return replace(
            self,
            allocation=self.allocation or allocation,
            reserved_for=reserved,
            finalizers=finalizers,
        )

    def without_consumer(self, uid: str) -> ResourceClaim:
        return replace(self, reserved_for=tuple(c for c in self.reserved_for if c.uid != uid))

    def without_allocation(self) -> ResourceClaim:
        return replace(
            self,
            allocation=None,
            reserved_for=(),
            finalizers=tuple(f for f in self.finalizers if f != FINALIZER),
        )

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> ResourceClaim:
        meta = _meta(obj)
        status = _m(obj.get("status"), "status")
        allocation = None
        raw_alloc = status.get("allocation")
        if raw_alloc is not None:
            aw = "status.allocation"
            raw_alloc = _m(raw_alloc, aw)
            results = []
            devs = _m(raw_alloc.get("devices"), f"{aw}.devices")
            for i, r in enumerate(_l(devs.get("results"), f"{aw}.devices.results")):
                rw = f"{aw}.devices.results[{i}]"
                r = _m(r, rw)
                results.append(
                    AllocationResult(
                        _s(r.get("request"), f"{rw}.request"),
                        _s(r.get("driver"), f"{rw}.driver"),
                        _s(r.get("pool"), f"{rw}.pool"),
                        _s(r.get("device"), f"{rw}.device"),
                    )
                )
            selector = None
            node = None
            if raw_alloc.get("nodeSelector") is not None:
                selector = NodeSelector.parse(raw_alloc["nodeSelector"], f"{aw}.nodeSelector")
                node = _selector_node(raw_alloc["nodeSelector"])
            allocation = Allocation(tuple(results), selector, node)
        reserved = []
        for i, c in enumerate(_l(status.get("reservedFor"), "status.reservedFor")):
            c = _m(c, f"status.reservedFor[{i}]")
            reserved.append(Consumer(str(c.get("name") or ""), str(c.get("uid") or "")))
        owner = None
        for ref in _l(meta.get("ownerReferences"), "metadata.ownerReferences"):
            if isinstance(ref, Mapping) and ref.get("controller"):
                owner = (str(ref.get("kind")), str(ref.get("name")), str(ref.get("uid")))
        namespace = str(meta.get("namespace") or "default")
        name = _s(meta.get("name"), "metadata.name")
        return cls(
            namespace,
            name,
            str(meta.get("uid") or f"uid-{namespace}/{name}"),
            ClaimSpec.parse(obj.get("spec"), "spec"),
            deleting=meta.get("deletionTimestamp") is not None,
            allocation=allocation,
            reserved_for=tuple(reserved),
            owner=owner,
            finalizers=tuple(str(f) for f in _l(meta.get("finalizers"), "metadata.finalizers")),
        )


def node_name_selector(node_name: str) -> NodeSelector:
    """The selector an allocation of node-local devices gets: metadata.name In [node]."""
    return NodeSelector.parse(
        {
            "nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
            ]
        },
        "status.allocation.nodeSelector",
    )


def _selector_node(raw: Any) -> str | None:
    """The single node a matchFields metadata.name In [node] selector names."""
    try:
        terms = raw.get("nodeSelectorTerms") or []
        fields = terms[0].get("matchFields") or []
        values = fields[0].get("values") or []
        return str(values[0]) if len(terms) == 1 and len(values) == 1 else None
    except (AttributeError, IndexError, TypeError):
        return None


@dataclass(frozen=True, slots=True)
class ResourceClaimTemplate:
    namespace: str
    name: str
    spec: ClaimSpec

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> ResourceClaimTemplate:
        meta = _meta(obj)
        spec = _m(obj.get("spec"), "spec")
        return cls(
            str(meta.get("namespace") or "default"),
            _s(meta.get("name"), "metadata.name"),
            ClaimSpec.parse(spec.get("spec"), "spec.spec"),
        )


@dataclass(frozen=True, slots=True)
class PodClaim:
    """One entry of a pod's spec.resourceClaims and the claim it names: the claim
    itself (resourceClaimName) or the one generated from a template, as recorded in
    status.resourceClaimStatuses (None: not generated yet)."""

    name: str
    claim_name: str | None
    template_name: str | None
    generated: str | None = None

    @property
    def resolved(self) -> str | None:
        return self.claim_name if self.claim_name else self.generated


def parse_pod_claims(spec: Mapping[str, Any], status: Mapping[str, Any]) -> tuple[PodClaim, ...]:
    raw = spec.get("resourceClaims")
    if not raw:
        return ()
    generated: dict[str, str | None] = {}
    for i, s in enumerate(_l(status.get("resourceClaimStatuses"), "status.resourceClaimStatuses")):
        s = _m(s, f"status.resourceClaimStatuses[{i}]")
        name = s.get("resourceClaimName")
        generated[str(s.get("name"))] = str(name) if name else None
    out: list[PodClaim] = []
    for i, r in enumerate(_l(raw, "spec.resourceClaims")):
        where = f"spec.resourceClaims[{i}]"
        r = _m(r, where)
        name = _s(r.get("name"), f"{where}.name")
        claim = r.get("resourceClaimName") or None
        template = r.get("resourceClaimTemplateName") or None
        if (claim is None) == (template is None):
            raise InvalidInput(
                "exactly one of resourceClaimName or resourceClaimTemplateName is required",
                field=where,
            )
        out.append(
            PodClaim(
                name,
                str(claim) if claim else None,
                str(template) if template else None,
                generated.get(name),
            )
        )
    return tuple(out)


@dataclass
class DraObjects:
    """Every DRA object of a snapshot, indexed as the plugin reads them."""

    classes: dict[str, DeviceClass] = field(default_factory=dict)
    slices: list[ResourceSlice] = field(default_factory=list)
    claims: dict[str, ResourceClaim] = field(default_factory=dict)  # "ns/name"
    templates: dict[str, ResourceClaimTemplate] = field(default_factory=dict)
    # Devices of the newest generation of each pool, pools in (driver, pool) order.
    devices: list[Device] = field(default_factory=list)
    by_id: dict[DeviceId, Device] = field(default_factory=dict)
    local: dict[str, list[Device]] = field(default_factory=dict)  # node -> its devices
    shared: list[Device] = field(default_factory=list)  # nodeSelector / allNodes devices
    # Selector answers by (expression, device): the devices never change, so every view
    # and simulation of these objects shares them.
    selector_memo: dict[tuple[str, DeviceId], bool] = field(
        default_factory=dict, compare=False, repr=False
    )

    def __bool__(self) -> bool:
        return bool(self.classes or self.slices or self.claims or self.templates)

    def index(self) -> None:
        newest: dict[tuple[str, str], int] = {}
        for s in self.slices:
            key = (s.driver, s.pool)
            newest[key] = max(newest.get(key, s.generation), s.generation)
        pools: dict[tuple[str, str], list[Device]] = {}
        for s in self.slices:
            if s.generation == newest[(s.driver, s.pool)]:
                pools.setdefault((s.driver, s.pool), []).extend(s.devices)
        self.devices = [d for key in sorted(pools) for d in pools[key]]
        self.by_id = {d.id: d for d in self.devices}
        self.local = {}
        self.shared = []
        for d in self.devices:
            if d.node_name is not None:
                self.local.setdefault(d.node_name, []).append(d)
            else:
                self.shared.append(d)

    def devices_for(self, node_name: str, labels: Mapping[str, str]) -> list[Device]:
        """The devices a claim could get on the node, in the allocator's pool order."""
        local = self.local.get(node_name, [])
        if not self.shared:
            return local
        extra = [d for d in self.shared if d.available_on(node_name, labels)]
        if not extra:
            return local
        return sorted([*local, *extra], key=lambda d: (d.driver, d.pool))

    def allocated_devices(self) -> dict[DeviceId, ResourceClaim]:
        """ListAllAllocatedDevices: every device some claim's allocation holds."""
        out: dict[DeviceId, ResourceClaim] = {}
        for claim in self.claims.values():
            if claim.allocation is not None:
                for r in claim.allocation.results:
                    out[r.device_id] = claim
        return out

    def with_claims(self, claims: dict[str, ResourceClaim]) -> DraObjects:
        """The same devices and classes with another claim map (a simulation's own)."""
        view = replace(self, claims=claims)
        return view


def generated_claim(
    pod_name: str, pod_uid: str, namespace: str, claim_name: str, template: ResourceClaimTemplate
) -> ResourceClaim:
    """The claim the resourceclaim controller makes from a template for a pod:
    <pod>-<podClaimName>-<5 characters>, owned by the pod. The random suffix is made
    from the pod's uid: the same question twice names the same claims."""
    digest = hashlib.sha256(f"{pod_uid}/{claim_name}".encode()).digest()
    suffix = "".join("bcdfghjklmnpqrstvwxz2456789"[b % 27] for b in digest[:5])
    name = f"{pod_name}-{claim_name}-{suffix}"
    return ResourceClaim(
        namespace,
        name,
        f"uid-{namespace}/{name}",
        template.spec,
        owner=("Pod", pod_name, pod_uid),
    )


def generate_claims(dra: DraObjects, pod: Any) -> list[ResourceClaim]:
    """The resourceclaim controller for a pod submitted now: a claim made from each
    template the pod names and has no claim for yet, recorded in the pod's claim list
    (status.resourceClaimStatuses); returns the claims made (to add to the claims)."""
    made: list[ResourceClaim] = []
    refs = []
    for ref in pod.resource_claims:
        template = dra.templates.get(f"{pod.namespace}/{ref.template_name}")
        if ref.template_name is None or ref.generated is not None or template is None:
            refs.append(ref)
            continue
        claim = generated_claim(pod.name, pod.uid, pod.namespace, ref.name, template)
        made.append(claim)
        refs.append(replace(ref, generated=claim.name))
    pod.resource_claims = tuple(refs)
    return made
