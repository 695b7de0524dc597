"""Node, Pod, PodDisruptionBudget, PriorityClass and ResourceQuota, built once from plain dicts.

Only the fields the scheduler reads are kept. Pod requests are computed here the way
k8s.io/component-helpers/resource.PodRequests computes them for the scheduler.
"""

from __future__ import annotations

import marshal
import operator
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any, NamedTuple, TypeGuard

from .dra.objects import PodClaim, parse_pod_claims
from .errors import InvalidInput
from .fields import list_of as _list
from .fields import mapping as _mapping
from .fields import str_map as _str_map
from .labels import LabelSelector, NodeSelector, NodeSelectorTerm
from .quantity import QuantityError, resource_value
from .volumes.podvolumes import PodVolume, parse_pod_volumes

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"
HUGEPAGES_PREFIX = "hugepages-"

# schedutil.DefaultMilliCPURequest / DefaultMemoryRequest: what a container without a
# cpu/memory request counts as when spreading load (NonZeroRequested), not when fitting.
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024

PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
PREEMPT_NEVER = "Never"

# Sorts after every real start time: GetPodStartTime uses "now" for a pod without one.
NO_START_TIME = 2**62

Resources = dict[str, int]


def is_mapping(value: Any) -> TypeGuard[Mapping[str, Any]]:
    # A dict, nearly always: spares the ABC's isinstance check, once per object.
    return type(value) is dict or isinstance(value, Mapping)


def _metadata(obj: Mapping[str, Any]) -> tuple[Mapping[str, Any], str]:
    """An object's metadata and its required name."""
    meta = _mapping(obj.get("metadata"), "metadata")
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        raise InvalidInput("is required", field="metadata.name")
    return meta, name


def _dicts(raw: Any, field: str) -> list[dict[str, Any]]:
    """A list of objects, each copied (spec.tolerations, ...)."""
    if raw is None:  # most pods: no list to walk, no field names to format
        return []
    return [dict(_mapping(item, f"{field}[{i}]")) for i, item in enumerate(_list(raw, field))]


# _shared_str_map's answers by the map's items: the pods of one workload repeat the same
# labels and nodeSelector, and pods may share one dict as nothing changes them in place.
_STR_MAPS: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}
_STR_MAPS_MAX = 65536


def _shared_str_map(raw: Any, field: str) -> dict[str, str]:
    """_str_map's answer, shared by every pod whose map holds the same items."""
    if type(raw) is not dict:
        return _str_map(raw, field)
    try:
        items = tuple(raw.items())
        got = _STR_MAPS.get(items)
    except TypeError:  # an unhashable value: _str_map names it
        return _str_map(raw, field)
    if got is None:
        got = _str_map(raw, field)
        # Only maps of plain strings are kept, so a key of other types never matches one.
        if all(type(k) is str and type(v) is str for k, v in items):
            if len(_STR_MAPS) >= _STR_MAPS_MAX:
                _STR_MAPS.clear()
            _STR_MAPS[items] = got
    return got


def _int32(raw: Any, field: str) -> int:
    """An int32 field of the API (a priority, disruptionsAllowed): the API server never
    stores one beyond 32 bits, and kube-scheduler's arithmetic on them assumes it."""
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise InvalidInput("must be an integer", field=field)
    if not -(2**31) <= raw < 2**31:
        raise InvalidInput("must fit in a 32-bit integer", field=field)
    return raw


# Timeline annotations (DESIGN.md, "Timeline contract"), in seconds after time zero.
ARRIVAL_SECONDS = "preemptlab.io/arrival-seconds"
DELETE_AT_SECONDS = "preemptlab.io/delete-at-seconds"
DEFAULT_GRACE_SECONDS = 30
# The longest simulated span a timed run covers: 7 days. Arrivals and deletions must fall
# within it; a run still waiting when its next event lies beyond stops there (cycle-limit).
TIMELINE_SPAN_SECONDS = 7 * 24 * 3600
_INT64 = 2**63


def _grace_seconds(raw: Any) -> int:
    """spec.terminationGracePeriodSeconds; 30 when unset, as the API server defaults it.
    An int64 there (the API server refuses anything else); a negative one is taken as 1,
    as the pod strategy's CheckGracefulDelete does when the pod is deleted."""
    if raw is None:
        return DEFAULT_GRACE_SECONDS
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise InvalidInput(
            "must be a whole number of seconds", field="spec.terminationGracePeriodSeconds"
        )
    if not -_INT64 <= raw < _INT64:
        raise InvalidInput(
            "must fit in a 64-bit integer (seconds)", field="spec.terminationGracePeriodSeconds"
        )
    return 1 if raw < 0 else raw


def seconds_annotation_ms(annotations: Any, name: str) -> int | None:
    """A timeline annotation's value in milliseconds (a number of seconds, as a string or
    a number, from 0 to TIMELINE_SPAN_SECONDS), or None where it is absent."""
    if not isinstance(annotations, Mapping) or name not in annotations:
        return None
    raw = annotations[name]
    try:
        seconds = float(raw) if not isinstance(raw, bool) else -1.0
    except (TypeError, ValueError):
        seconds = -1.0
    # Also refuses nan and inf: neither compares within the range.
    if not 0 <= seconds <= TIMELINE_SPAN_SECONDS:
        raise InvalidInput(
            f"must be a number of seconds from 0 to {TIMELINE_SPAN_SECONDS} (7 days, the "
            f"longest span a timed run covers); got {raw!r}",
            field=f"metadata.annotations[{name}]",
        )
    return round(seconds * 1000)


def parse_resource_list(raw: Any, field: str) -> Resources:
    """A ResourceList as integers (cpu in millicores), zero entries kept."""
    out: Resources = {}
    for name, qty in _mapping(raw, field).items():
        try:
            amount = resource_value(str(name), qty)
        except QuantityError as e:
            raise InvalidInput(str(e), field=f"{field}.{name}") from None
        if amount < 0:
            # The API server refuses a negative request, limit, overhead or allocatable
            # (ValidateResourceQuantityValue), so no cluster holds one.
            raise InvalidInput(
                f"{qty} is negative; quantities must be 0 or more", field=f"{field}.{name}"
            )
        out[str(name)] = amount
    return out


# The fractional seconds of an RFC 3339 time: right after the seconds of the clock time.
_FRACTION = re.compile(r"(?<=:[0-9][0-9])\.([0-9]+)")


# parse_time_ns by the text: pods started by one rollout or node boot share their
# start time to the second.
_TIMES_NS: dict[str, int] = {}
_TIMES_NS_MAX = 65536


def parse_time_ns(raw: Any, field: str) -> int:
    """RFC 3339 time to integer nanoseconds since the epoch."""
    if type(raw) is str:
        got = _TIMES_NS.get(raw)
        if got is None:
            got = _time_ns(raw, field)
            if len(_TIMES_NS) >= _TIMES_NS_MAX:
                _TIMES_NS.clear()
            _TIMES_NS[raw] = got
        return got
    return _time_ns(raw, field)


def _time_ns(raw: Any, field: str) -> int:
    if not isinstance(raw, str):
        raise InvalidInput("must be an RFC 3339 time string", field=field)
    text = raw.strip()
    if text.endswith("Z") or text.endswith("z"):
        text = text[:-1] + "+00:00"
    # metav1.Time keeps every fractional digit (time.Parse, nanoseconds); datetime stops
    # at microseconds, so the fraction is read apart.
    nanos = 0
    frac = _FRACTION.search(text)
    if frac is not None:
        nanos = int((frac.group(1) + "000000000")[:9])
        text = text[: frac.start()] + text[frac.end() :]
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidInput(f"invalid time {raw!r}", field=field) from None
    if dt.tzinfo is None:
        raise InvalidInput(f"time {raw!r} has no zone", field=field)
    return int(dt.timestamp()) * 1_000_000_000 + nanos


def _add(into: Resources, other: Mapping[str, int]) -> None:
    for k, v in other.items():
        into[k] = into.get(k, 0) + v


def _max_into(into: Resources, other: Mapping[str, int]) -> None:
    for k, v in other.items():
        if v > into.get(k, 0) or k not in into:
            into[k] = max(v, into.get(k, v))


def is_supported_pod_level_resource(name: str) -> bool:
    """resourcehelper.IsSupportedPodLevelResource: cpu, memory and hugepages-*."""
    return name in (CPU, MEMORY) or name.startswith(HUGEPAGES_PREFIX)


def pod_requests(
    containers: list[Resources],
    init_containers: list[tuple[Resources, bool]],
    pod_level: Resources | None,
    overhead: Resources | None,
    non_missing: Resources | None = None,
) -> Resources:
    """resourcehelper.PodRequests.

    containers: each regular container's requests; init_containers: (requests,
    restartable) in spec order; pod_level: spec.resources.requests (cpu/memory) or None;
    non_missing: values a container without that request counts as (NonZeroRequested).
    """

    def with_defaults(reqs: Resources) -> Resources:
        if not non_missing:
            return reqs
        out = dict(reqs)
        for k, v in non_missing.items():
            if k not in reqs:
                out[k] = v
        return out

    reqs: Resources = {}
    for c in containers:
        _add(reqs, with_defaults(c))
    restartable: Resources = {}
    init_max: Resources = {}
    for c, is_sidecar in init_containers:
        creqs = with_defaults(c)
        if is_sidecar:
            # Sidecars run beside the regular containers: they add to the total and to
            # every later init container's peak.
            _add(reqs, creqs)
            _add(restartable, creqs)
            creqs = dict(restartable)
        else:
            tmp = dict(creqs)
            _add(tmp, restartable)
            creqs = tmp
        _max_into(init_max, creqs)
    _max_into(reqs, init_max)
    if pod_level:
        # applyPodLevelResources: the pod-level value replaces the containers' sum.
        for k, v in pod_level.items():
            if is_supported_pod_level_resource(k):
                reqs[k] = v
    if overhead:
        _add(reqs, overhead)
    return reqs


class PriorityClass:
    __slots__ = (
        "builtin",
        "created",
        "description",
        "global_default",
        "name",
        "preemption_policy",
        "value",
    )

    def __init__(
        self,
        name: str,
        value: int,
        *,
        global_default: bool = False,
        preemption_policy: str = PREEMPT_LOWER_PRIORITY,
        description: str = "",
        created: str | None = None,
        builtin: bool = False,
    ) -> None:
        self.name = name
        self.value = value
        self.global_default = global_default
        self.preemption_policy = preemption_policy
        self.description = description
        self.created = created
        self.builtin = builtin

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> PriorityClass:
        meta, name = _metadata(obj)
        value = _int32(obj.get("value"), "value")
        # As the API server decodes and validates them: an unset policy defaults, any
        # other value must be one of the two; globalDefault is a JSON boolean, so the
        # string "false" is refused rather than read as true.
        policy = obj.get("preemptionPolicy")
        if policy is None:
            policy = PREEMPT_LOWER_PRIORITY
        elif policy not in (PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER):
            raise InvalidInput(
                f"Unsupported value: {policy!r}: supported values: "
                f'"{PREEMPT_LOWER_PRIORITY}", "{PREEMPT_NEVER}"',
                field="preemptionPolicy",
            )
        global_default = obj.get("globalDefault")
        if global_default is not None and not isinstance(global_default, bool):
            raise InvalidInput(
                f"Invalid value: {global_default!r}: must be a boolean (true or false)",
                field="globalDefault",
            )
        return cls(
            name,
            value,
            global_default=bool(global_default),
            preemption_policy=policy,
            description=str(obj.get("description") or ""),
            created=meta.get("creationTimestamp"),
        )


class Node:
    __slots__ = ("allocatable", "images", "labels", "name", "taints", "unschedulable")

    def __init__(
        self,
        name: str,
        *,
        labels: dict[str, str] | None = None,
        taints: list[dict[str, str]] | None = None,
        unschedulable: bool = False,
        allocatable: Resources | None = None,
        images: dict[str, int] | None = None,
    ) -> None:
        self.name = name
        self.labels = labels or {}
        self.taints = taints or []
        self.unschedulable = unschedulable
        self.allocatable = allocatable or {}
        # image name -> size in bytes, every name of every image the node reports
        self.images = images or {}

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> Node:
        meta, name = _metadata(obj)
        spec = _mapping(obj.get("spec"), "spec")
        status = _mapping(obj.get("status"), "status")
        taints: list[dict[str, str]] = []
        for i, t in enumerate(_list(spec.get("taints"), "spec.taints")):
            t = _mapping(t, f"spec.taints[{i}]")
            effect = t.get("effect")
            if effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
                raise InvalidInput(f"invalid effect {effect!r}", field=f"spec.taints[{i}].effect")
            taints.append(
                {
                    "key": str(t.get("key") or ""),
                    "value": str(t.get("value") or ""),
                    "effect": effect,
                }
            )
        images: dict[str, int] = {}
        for i, img in enumerate(_list(status.get("images"), "status.images")):
            img = _mapping(img, f"status.images[{i}]")
            size = img.get("sizeBytes") or 0
            for n in img.get("names") or []:
                images[str(n)] = int(size)
        return cls(
            name,
            labels=_str_map(meta.get("labels"), "metadata.labels"),
            taints=taints,
            unschedulable=bool(spec.get("unschedulable")),
            allocatable=parse_resource_list(status.get("allocatable"), "status.allocatable"),
            images=images,
        )


class PDB:
    __slots__ = (
        "disrupted_pods",
        "disruptions_allowed",
        "label_selector",
        "max_unavailable",
        "min_available",
        "name",
        "namespace",
        "selector",
    )

    def __init__(
        self,
        namespace: str,
        name: str,
        *,
        selector: dict[str, Any] | None,
        disruptions_allowed: int = 0,
        disrupted_pods: frozenset[str] = frozenset(),
        min_available: Any = None,
        max_unavailable: Any = None,
    ) -> None:
        self.namespace = namespace
        self.name = name
        self.selector = selector
        self.label_selector = LabelSelector.parse(selector, "spec.selector")
        self.disruptions_allowed = disruptions_allowed
        self.disrupted_pods = disrupted_pods
        self.min_available = min_available
        self.max_unavailable = max_unavailable

    def matches(self, pod: Pod) -> bool:
        """filterPodsWithPDBViolation's match: same namespace, non-empty selector, labels match."""
        if pod.namespace != self.namespace or not pod.labels:
            return False
        sel = self.label_selector
        return not sel.empty and sel.matches(pod.labels)

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> PDB:
        meta, name = _metadata(obj)
        spec = _mapping(obj.get("spec"), "spec")
        status = _mapping(obj.get("status"), "status")
        allowed = _int32(status.get("disruptionsAllowed") or 0, "status.disruptionsAllowed")
        selector = spec.get("selector")
        if selector is not None and not isinstance(selector, Mapping):
            raise InvalidInput("must be an object", field="spec.selector")
        return cls(
            str(meta.get("namespace") or "default"),
            name,
            selector=dict(selector) if selector is not None else None,
            disruptions_allowed=allowed,
            disrupted_pods=frozenset(_mapping(status.get("disruptedPods"), "status.disruptedPods")),
            min_available=spec.get("minAvailable"),
            max_unavailable=spec.get("maxUnavailable"),
        )


# The scopeSelector operators a ResourceQuota may use (ScopeSelectorOperator).
_SCOPE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
PRIORITY_CLASS_SCOPE = "PriorityClass"


class ResourceQuota:
    """A ResourceQuota, kept for the priority plan: which PriorityClasses it limits.

    ``hard`` keeps the quantities as written (the plan shows them, it never adds them
    up). ``priority_class_scopes`` are the ``scopeSelector.matchExpressions`` whose
    scopeName is PriorityClass, as (operator, values) in the given order; a pod falls
    under the quota only when it meets every one of them (the quota controller ANDs them).
    """

    __slots__ = ("hard", "name", "namespace", "priority_class_scopes", "scopes")

    def __init__(
        self,
        namespace: str,
        name: str,
        *,
        hard: dict[str, str] | None = None,
        scopes: list[str] | None = None,
        priority_class_scopes: list[tuple[str, tuple[str, ...]]] | None = None,
    ) -> None:
        self.namespace = namespace
        self.name = name
        self.hard = hard or {}
        self.scopes = scopes or []
        self.priority_class_scopes = priority_class_scopes or []

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def scoped_by_priority_class(self) -> bool:
        return bool(self.priority_class_scopes)

    def covers_class(self, class_name: str | None) -> bool:
        """Whether a pod naming ``class_name`` (None: no class) falls under the quota's
        PriorityClass scopes (podMatchesScopeFunc for the PriorityClass scope)."""
        for op, values in self.priority_class_scopes:
            if op == "In":
                ok = class_name is not None and class_name in values
            elif op == "NotIn":
                ok = class_name is None or class_name not in values
            elif op == "Exists":
                ok = class_name is not None
            else:  # DoesNotExist
                ok = class_name is None
            if not ok:
                return False
        return True

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> ResourceQuota:
        meta, name = _metadata(obj)
        spec = _mapping(obj.get("spec"), "spec")
        hard = {str(k): str(v) for k, v in _mapping(spec.get("hard"), "spec.hard").items()}
        scopes = [str(s) for s in _list(spec.get("scopes"), "spec.scopes")]
        selector = _mapping(spec.get("scopeSelector"), "spec.scopeSelector")
        by_class: list[tuple[str, tuple[str, ...]]] = []
        where = "spec.scopeSelector.matchExpressions"
        for i, expr in enumerate(_list(selector.get("matchExpressions"), where)):
            expr = _mapping(expr, f"{where}[{i}]")
            if expr.get("scopeName") != PRIORITY_CLASS_SCOPE:
                continue
            op = expr.get("operator")
            if op not in _SCOPE_OPERATORS:
                raise InvalidInput(f"unsupported operator {op!r}", field=f"{where}[{i}].operator")
            values = tuple(str(v) for v in _list(expr.get("values"), f"{where}[{i}].values"))
            by_class.append((op, values))
        return cls(
            str(meta.get("namespace") or "default"),
            name,
            hard=hard,
            scopes=scopes,
            priority_class_scopes=by_class,
        )


class Pod:
    """A pod as the scheduler sees it.

    ``requests`` are the scheduler's computed pod requests (non-zero entries only);
    ``non_zero_cpu``/``non_zero_memory`` are what NodeInfo.NonZeroRequested adds;
    ``score_cpu``/``score_memory`` are what LeastAllocated counts for the pod being
    scheduled (calculatePodResourceRequest: containers with defaults, no pod-level
    requests), which differ from the former only for pods with pod-level requests.
    ``affinity`` and ``topology_spread_constraints`` stay raw dicts for the plugins.
    """

    __slots__ = (
        "affinity",
        "delete_at_ms",
        "deletion_timestamp",
        "grace_seconds",
        "host_ports",
        "images",
        "key",
        "labels",
        "name",
        "namespace",
        "node_name",
        "node_selector",
        "nominated_node_name",
        "non_zero_cpu",
        "non_zero_memory",
        "num_containers",
        "owner",
        "phase",
        "preemption_policy",
        "preferred_node_affinity",
        "priority",
        "priority_class_name",
        "qos_class",
        "requests",
        "required_node_affinity",
        # Pickled last (_POD_PICKLED): a pod pickled before it existed has one value
        # fewer.
        "resource_claims",
        "scheduler_name",
        "score_cpu",
        "score_memory",
        "spec_priority",
        "start_ns",
        "start_time",
        "terminating",
        "terminating_by_preemption",
        "tolerations",
        "topology_spread_constraints",
        "uid",
        "volumes",
    )

    namespace: str
    name: str
    uid: str
    key: str
    node_name: str | None
    phase: str
    priority: int
    spec_priority: int | None
    priority_class_name: str | None
    preemption_policy: str | None
    requests: Resources
    non_zero_cpu: int
    non_zero_memory: int
    score_cpu: int
    score_memory: int
    num_containers: int
    labels: dict[str, str]
    owner: str | None
    start_time: str | None
    start_ns: int
    terminating: bool
    terminating_by_preemption: bool
    deletion_timestamp: str | None
    # spec.terminationGracePeriodSeconds (30 when unset): how long a deleted pod keeps
    # running, and its room held, before it is gone.
    grace_seconds: int
    # preemptlab.io/delete-at-seconds: a timeline run deletes this running pod then.
    delete_at_ms: int | None
    nominated_node_name: str | None
    qos_class: str
    tolerations: list[dict[str, Any]]
    node_selector: dict[str, str]
    required_node_affinity: NodeSelector | None
    preferred_node_affinity: list[tuple[int, NodeSelectorTerm]]
    affinity: dict[str, Any] | None
    topology_spread_constraints: list[dict[str, Any]]
    host_ports: list[tuple[str, str, int]]
    images: list[str]
    scheduler_name: str
    # spec.volumes that the volume plugins read (claims, inline disks); () for most pods.
    volumes: tuple[PodVolume, ...]
    # spec.resourceClaims with the generated claims' names (dra/objects.py).
    resource_claims: tuple[PodClaim, ...]

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled at ingest for every worker (clusters.parsed): the slots' values as one
        # tuple instead of a dict naming all 36 per pod, a third smaller and a quarter
        # faster to write for 150,000 pods.
        return (_pod_from_slot_values, (_pod_slot_values(self),))

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> Pod:
        meta = _mapping(obj.get("metadata"), "metadata")
        spec = _mapping(obj.get("spec"), "spec")
        status = _mapping(obj.get("status"), "status")
        name = meta.get("name")
        if not isinstance(name, str) or not name:
            raise InvalidInput("is required", field="metadata.name")
        p = cls.__new__(cls)
        p.name = name
        p.namespace = str(meta.get("namespace") or "default")
        p.key = f"{p.namespace}/{name}"
        p.uid = str(meta.get("uid") or f"uid-{p.key}")
        p.labels = _shared_str_map(meta.get("labels"), "metadata.labels")
        owner = None
        for ref in _list(meta.get("ownerReferences"), "metadata.ownerReferences"):
            if is_mapping(ref) and (owner is None or ref.get("controller")):
                owner = f"{ref.get('kind')}/{ref.get('name')}"
        p.owner = owner
        p.deletion_timestamp = meta.get("deletionTimestamp")
        p.terminating = p.deletion_timestamp is not None
        by_preemption = False
        if p.terminating:
            for cond in _list(status.get("conditions"), "status.conditions"):
                if isinstance(cond, Mapping) and cond.get("type") == "DisruptionTarget":
                    by_preemption = (
                        cond.get("status") == "True"
                        and cond.get("reason") == "PreemptionByScheduler"
                    )
                    break
        p.terminating_by_preemption = by_preemption
        p.grace_seconds = _grace_seconds(spec.get("terminationGracePeriodSeconds"))
        annotations = meta.get("annotations")
        p.delete_at_ms = (
            seconds_annotation_ms(annotations, DELETE_AT_SECONDS) if annotations else None
        )
        node_name = spec.get("nodeName")
        p.node_name = str(node_name) if node_name else None
        p.phase = str(status.get("phase") or "Pending")
        p.nominated_node_name = status.get("nominatedNodeName") or None
        p.scheduler_name = str(spec.get("schedulerName") or "default-scheduler")
        prio = spec.get("priority")
        if prio is not None:
            prio = _int32(prio, "spec.priority")
        p.spec_priority = prio
        p.priority = prio or 0
        pcn = spec.get("priorityClassName")
        p.priority_class_name = str(pcn) if pcn else None
        policy = spec.get("preemptionPolicy")
        if policy is not None and policy not in (PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER):
            raise InvalidInput(f"unsupported value {policy!r}", field="spec.preemptionPolicy")
        p.preemption_policy = policy
        st = status.get("startTime")
        p.start_time = st if isinstance(st, str) else None
        p.start_ns = parse_time_ns(st, "status.startTime") if st is not None else NO_START_TIME
        _parse_containers(p, spec)
        p.tolerations = _dicts(spec.get("tolerations"), "spec.tolerations")
        p.node_selector = _shared_str_map(spec.get("nodeSelector"), "spec.nodeSelector")
        affinity = spec.get("affinity")
        p.affinity = (
            dict(_mapping(affinity, "spec.affinity")) or None if affinity is not None else None
        )
        p.required_node_affinity = None
        p.preferred_node_affinity = []
        node_aff = (
            _mapping(p.affinity.get("nodeAffinity"), "spec.affinity.nodeAffinity")
            if p.affinity
            else None
        )
        if node_aff:
            req = node_aff.get("requiredDuringSchedulingIgnoredDuringExecution")
            where = "spec.affinity.nodeAffinity"
            if req is not None:
                p.required_node_affinity = NodeSelector.parse(
                    req, f"{where}.requiredDuringSchedulingIgnoredDuringExecution"
                )
            for i, term in enumerate(
                _list(node_aff.get("preferredDuringSchedulingIgnoredDuringExecution"), where)
            ):
                f = f"{where}.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
                term = _mapping(term, f)
                weight = term.get("weight", 0)
                if isinstance(weight, bool) or not isinstance(weight, int):
                    raise InvalidInput("must be an integer", field=f"{f}.weight")
                p.preferred_node_affinity.append(
                    (
                        weight,
                        NodeSelectorTerm.parse(term.get("preference") or {}, f"{f}.preference"),
                    )
                )
        p.topology_spread_constraints = _dicts(
            spec.get("topologySpreadConstraints"), "spec.topologySpreadConstraints"
        )
        p.volumes = parse_pod_volumes(spec.get("volumes"), name)
        p.resource_claims = parse_pod_claims(spec, status) if spec.get("resourceClaims") else ()
        return p


# The order of a pickled pod's values: the slots as they were before resource_claims,
# then it, so a pod pickled without it (one value fewer) reads every other value in its
# place. (A stored cluster is also keyed by ENGINE_VERSION, which changed with it.)
_POD_PICKLED = (*(s for s in Pod.__slots__ if s != "resource_claims"), "resource_claims")
_pod_slot_values = operator.attrgetter(*_POD_PICKLED)


def _pod_from_slot_values(values: tuple[Any, ...]) -> Pod:
    pod = Pod.__new__(Pod)
    if len(values) == len(_POD_PICKLED) - 1:
        values = (*values, ())  # pickled before resource_claims: none
    for name, value in zip(_POD_PICKLED, values, strict=True):
        setattr(pod, name, value)
    return pod


class _ContainerFacts(NamedTuple):
    """What a pod's containers, pod-level resources and overhead decide for scheduling."""

    requests: Resources
    non_zero_cpu: int
    non_zero_memory: int
    score_cpu: int
    score_memory: int
    host_ports: list[tuple[str, str, int]]
    images: list[str]
    num_containers: int
    qos_class: str


# _container_facts by _containers_key: the pods of one ReplicaSet or Job repeat the
# same containers (the 150,000 benchmark pods hold 750 distinct ones), so most
# pods skip the parsing. Pods share the memo's dicts and lists, as copy.copy'd pods
# already do: nothing changes a pod's requests, host_ports or images in place.
_CONTAINER_FACTS: dict[bytes, _ContainerFacts] = {}
_CONTAINER_FACTS_MAX = 4096


def _containers_key(spec: Mapping[str, Any]) -> bytes | None:
    """An exact image of every field _container_facts reads, or None when there is none.

    marshal (format 2 has no back-references, so its bytes depend on values alone)
    writes each value's exact type: a tuple is not a list, 1 is neither 1.0 nor True,
    NaN is not None, and a subclass or any other type is refused. Equal keys are thus
    equal inputs, which parse the same way.
    """
    try:
        return marshal.dumps(
            (
                spec.get("initContainers"),
                spec.get("containers"),
                spec.get("resources"),
                spec.get("overhead"),
            ),
            2,
        )
    except ValueError:
        return None


def _parse_containers(p: Pod, spec: Mapping[str, Any]) -> None:
    key = _containers_key(spec)
    facts = _CONTAINER_FACTS.get(key) if key is not None else None
    if facts is None:
        facts = _container_facts(spec)  # invalid input raises here: never memoized
        if key is not None:
            if len(_CONTAINER_FACTS) >= _CONTAINER_FACTS_MAX:
                _CONTAINER_FACTS.clear()
            _CONTAINER_FACTS[key] = facts
    (
        p.requests,
        p.non_zero_cpu,
        p.non_zero_memory,
        p.score_cpu,
        p.score_memory,
        p.host_ports,
        p.images,
        p.num_containers,
        p.qos_class,
    ) = facts


def _container_facts(spec: Mapping[str, Any]) -> _ContainerFacts:
    containers: list[Resources] = []
    inits: list[tuple[Resources, bool]] = []
    host_ports: list[tuple[str, str, int]] = []
    images: list[str] = []
    any_request_or_limit = False
    guaranteed = True
    for part in ("initContainers", "containers"):
        for i, c in enumerate(_list(spec.get(part), f"spec.{part}")):
            where = f"spec.{part}[{i}]"
            c = _mapping(c, where)
            res = _mapping(c.get("resources"), f"{where}.resources")
            reqs = parse_resource_list(res.get("requests"), f"{where}.resources.requests")
            limits = parse_resource_list(res.get("limits"), f"{where}.resources.limits")
            if reqs or limits:
                any_request_or_limit = True
            for r in (CPU, MEMORY):
                lim = limits.get(r)
                if lim is None or reqs.get(r, lim) != lim:
                    guaranteed = False
            img = c.get("image")
            if isinstance(img, str) and img:
                images.append(img)
            is_sidecar = c.get("restartPolicy") == "Always"
            if part == "containers":
                containers.append(reqs)
            else:
                inits.append((reqs, is_sidecar))
            # schedutil.GetHostPorts: only containers that run for the pod's whole life
            # (regular ones and restartable init containers) hold their host ports.
            holds_ports = part == "containers" or is_sidecar
            for j, port in enumerate(_list(c.get("ports"), f"{where}.ports")):
                port = _mapping(port, f"{where}.ports[{j}]")
                hp = port.get("hostPort")
                if hp:
                    if isinstance(hp, bool) or not isinstance(hp, int):
                        raise InvalidInput(
                            "must be an integer", field=f"{where}.ports[{j}].hostPort"
                        )
                    if hp < 0 or not holds_ports:
                        continue
                    host_ports.append(
                        (
                            str(port.get("hostIP") or "0.0.0.0"),
                            str(port.get("protocol") or "TCP"),
                            hp,
                        )
                    )
    pod_level_raw = _mapping(spec.get("resources"), "spec.resources")
    pod_level = (
        parse_resource_list(pod_level_raw.get("requests"), "spec.resources.requests") or None
    )
    # IsPodLevelRequestsSet: only requests of a supported resource make them count.
    if pod_level is not None and not any(map(is_supported_pod_level_resource, pod_level)):
        pod_level = None
    overhead = parse_resource_list(spec.get("overhead"), "spec.overhead") or None
    requests = pod_requests(containers, inits, pod_level, overhead)
    defaults = {CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST}
    # NonZeroRequested (PodInfo.CalculateResource): containers without a cpu/memory
    # request count the defaults, unless pod-level resources say otherwise
    # (getNonMissingContainerRequests).
    non_missing: Resources = {}
    if pod_level is None:
        non_missing = defaults
    else:
        if CPU not in requests:
            non_missing[CPU] = DEFAULT_MILLI_CPU_REQUEST
        if MEMORY not in requests:
            non_missing[MEMORY] = DEFAULT_MEMORY_REQUEST
    if non_missing:
        nz = pod_requests(containers, inits, pod_level, overhead, non_missing)
    else:
        nz = requests
    # LeastAllocated's request for the pod being scheduled
    # (resourceAllocationScorer.calculatePodResourceRequest) fills in the defaults per
    # container and skips pod-level requests: NewFit builds its scorer without the
    # PodLevelResources gate, so SkipPodLevelResources is true there.
    score = nz if pod_level is None else pod_requests(containers, inits, None, overhead, defaults)
    if pod_level and (pod_level.get(CPU) or pod_level.get(MEMORY)):
        any_request_or_limit = True
    if not any_request_or_limit:
        qos_class = "BestEffort"
    elif guaranteed and containers:
        qos_class = "Guaranteed"
    else:
        qos_class = "Burstable"
    return _ContainerFacts(
        {k: v for k, v in requests.items() if v},
        nz.get(CPU, 0),
        nz.get(MEMORY, 0),
        score.get(CPU, 0),
        score.get(MEMORY, 0),
        host_ports,
        images,
        # ImageLocality scales by every container, with or without an image.
        len(containers) + len(inits),
        qos_class,
    )
