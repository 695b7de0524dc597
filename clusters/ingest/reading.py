"""Read uploaded files into scrubbed Kubernetes objects.

YAML, and any JSON the fast path refuses, goes through the engine's
``read_documents`` (safe loader, bounded aliases, Lists flattened), so the
snapshot reads files exactly as the engine does.

A snapshot keeps only the fields scheduling and the pages read (the structs
below name them): metadata (names, labels, owners), the scheduling fields of
a pod spec (containers' names, images, resources and ports; affinity,
tolerations, priority, the volumes the volume plugins read, resource claims,
...), node taints and allocatable, PDB spec and status, and the fields of the
storage objects (PersistentVolumeClaims, PersistentVolumes, StorageClasses, the
CSI objects) and DRA objects (DeviceClasses, ResourceSlices, ResourceClaims and
their templates) that kube-scheduler reads. Everything else (probes, container
statuses, env, other volume sources) is not kept.

Large kubectl JSON dumps take a fast path: msgspec decodes straight into
those structs, so managedFields, env values and the data of Secrets and
ConfigMaps are skipped inside the decoder and never become Python objects.
That keeps a 150,000-pod dump within memory and time. The fast path only
handles input it can read unambiguously; anything else falls back to
``read_documents`` (whose error messages are the canonical ones) and the same
projection applied to the dicts it returns.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import msgspec
from django.conf import settings
from msgspec import UNSET, Raw, UnsetType

from clusters.constants import KEPT_KINDS
from clusters.ingest.scrub import scrub_object
from clusters.ingest.shapes import CHECKS, shape_problem
from clusters.kube_names import metadata_problem
from operations.input_limits import unstorable_value
from scheduling.engine import InvalidInput, load_scheduler_config, read_documents
from scheduling.engine.documents import gunzip, is_gzip
from scheduling.engine.profile.types import KIND as SCHEDULER_CONFIG_KIND

# Files at least this large try the fast path.
FAST_PATH_BYTES = 1024 * 1024


class _Meta(msgspec.Struct, rename="camel", omit_defaults=True):
    name: Any = UNSET
    generate_name: Any = UNSET
    namespace: Any = UNSET
    uid: Any = UNSET
    labels: Any = UNSET
    annotations: Any = UNSET
    owner_references: Any = UNSET
    creation_timestamp: Any = UNSET
    deletion_timestamp: Any = UNSET
    deletion_grace_period_seconds: Any = UNSET
    # A ResourceClaim's delete-protection (DynamicResources writes and clears it).
    finalizers: Any = UNSET
    # Unparsed slices of the input: counted, then dropped.
    managed_fields: Raw | UnsetType = UNSET


class _Container(msgspec.Struct, rename="camel", omit_defaults=True):
    name: Any = UNSET
    image: Any = UNSET
    resources: Any = UNSET
    ports: Any = UNSET
    restart_policy: Any = UNSET
    env: Raw | UnsetType = UNSET
    env_from: Raw | UnsetType = UNSET


class _Volume(msgspec.Struct, rename="camel", omit_defaults=True):
    """A pod's volume: only the sources kube-scheduler's volume plugins read (claims,
    generic ephemeral volumes, the in-tree disks VolumeRestrictions compares and CSI
    migration translates); a secret, configMap or projected volume keeps its name only."""

    name: Any = UNSET
    persistent_volume_claim: Any = UNSET
    ephemeral: Any = UNSET
    gce_persistent_disk: Any = UNSET
    aws_elastic_block_store: Any = UNSET
    azure_disk: Any = UNSET
    azure_file: Any = UNSET
    cinder: Any = UNSET
    vsphere_volume: Any = UNSET
    portworx_volume: Any = UNSET
    iscsi: Any = UNSET
    rbd: Any = UNSET


class _Spec(msgspec.Struct, rename="camel", omit_defaults=True):
    """The spec fields scheduling reads, of every kept kind (Pod, Node, PDB, quota, the
    storage and DRA kinds)."""

    # Pod
    containers: list[_Container] | UnsetType = UNSET
    init_containers: list[_Container] | UnsetType = UNSET
    node_name: Any = UNSET
    node_selector: Any = UNSET
    affinity: Any = UNSET
    tolerations: Any = UNSET
    topology_spread_constraints: Any = UNSET
    priority: Any = UNSET
    priority_class_name: Any = UNSET
    preemption_policy: Any = UNSET
    scheduler_name: Any = UNSET
    resources: Any = UNSET
    overhead: Any = UNSET
    runtime_class_name: Any = UNSET
    scheduling_gates: Any = UNSET
    host_network: Any = UNSET
    volumes: list[_Volume] | UnsetType = UNSET
    resource_claims: Any = UNSET
    # Node
    unschedulable: Any = UNSET
    taints: Any = UNSET
    # PodDisruptionBudget
    selector: Any = UNSET
    min_available: Any = UNSET
    max_unavailable: Any = UNSET
    unhealthy_pod_eviction_policy: Any = UNSET
    # ResourceQuota (the plan reads quota scoped by PriorityClass)
    hard: Any = UNSET
    scopes: Any = UNSET
    scope_selector: Any = UNSET
    # PersistentVolumeClaim (resources and selector above)
    volume_name: Any = UNSET
    storage_class_name: Any = UNSET
    access_modes: Any = UNSET
    volume_mode: Any = UNSET
    # PersistentVolume: its claim, topology and the sources the volume plugins read
    capacity: Any = UNSET
    claim_ref: Any = UNSET
    node_affinity: Any = UNSET
    persistent_volume_reclaim_policy: Any = UNSET
    csi: Any = UNSET
    local: Any = UNSET
    host_path: Any = UNSET
    gce_persistent_disk: Any = UNSET
    aws_elastic_block_store: Any = UNSET
    azure_disk: Any = UNSET
    azure_file: Any = UNSET
    cinder: Any = UNSET
    vsphere_volume: Any = UNSET
    portworx_volume: Any = UNSET
    iscsi: Any = UNSET
    rbd: Any = UNSET
    # CSINode, CSIDriver, VolumeAttachment (nodeName above)
    drivers: Any = UNSET
    storage_capacity: Any = UNSET
    attach_required: Any = UNSET
    attacher: Any = UNSET
    source: Any = UNSET
    # DeviceClass, ResourceSlice, ResourceClaim (nodeName, nodeSelector above);
    # a ResourceClaimTemplate's claim is its spec.metadata and spec.spec.
    selectors: Any = UNSET
    config: Any = UNSET
    extended_resource_name: Any = UNSET
    driver: Any = UNSET
    pool: Any = UNSET
    all_nodes: Any = UNSET
    per_device_node_selection: Any = UNSET
    shared_counters: Any = UNSET
    devices: Any = UNSET
    metadata: Any = UNSET
    spec: Any = UNSET


class _Status(msgspec.Struct, rename="camel", omit_defaults=True):
    """The status fields scheduling and the pages read, of every kept kind."""

    phase: Any = UNSET
    conditions: Any = UNSET
    start_time: Any = UNSET
    nominated_node_name: Any = UNSET
    qos_class: Any = UNSET
    allocatable: Any = UNSET
    capacity: Any = UNSET
    images: Any = UNSET
    current_healthy: Any = UNSET
    desired_healthy: Any = UNSET
    expected_pods: Any = UNSET
    disruptions_allowed: Any = UNSET
    disrupted_pods: Any = UNSET
    observed_generation: Any = UNSET
    # Pod: the claims made from its templates
    resource_claim_statuses: Any = UNSET
    # PersistentVolumeClaim, VolumeAttachment, ResourceClaim
    access_modes: Any = UNSET
    attached: Any = UNSET
    allocation: Any = UNSET
    reserved_for: Any = UNSET
    devices: Any = UNSET


class _Object(msgspec.Struct, rename="camel", omit_defaults=True):
    api_version: Any = UNSET
    kind: Any = UNSET
    metadata: _Meta | UnsetType = UNSET
    spec: _Spec | UnsetType = UNSET
    status: _Status | UnsetType = UNSET
    # PriorityClass keeps its fields at the top level.
    value: Any = UNSET
    global_default: Any = UNSET
    preemption_policy: Any = UNSET
    description: Any = UNSET
    # StorageClass and CSIStorageCapacity keep theirs there too.
    provisioner: Any = UNSET
    parameters: Any = UNSET
    reclaim_policy: Any = UNSET
    volume_binding_mode: Any = UNSET
    allowed_topologies: Any = UNSET
    allow_volume_expansion: Any = UNSET
    storage_class_name: Any = UNSET
    capacity: Any = UNSET
    maximum_volume_size: Any = UNSET
    node_topology: Any = UNSET
    # A v1 List.
    items: list[_Object] | UnsetType = UNSET


def _kept_keys(struct: type[msgspec.Struct]) -> dict[str, type[msgspec.Struct] | None]:
    """encoded key -> nested struct (for objects and lists of objects) or None; Raw fields left out."""
    out: dict[str, type[msgspec.Struct] | None] = {}
    for f in msgspec.structs.fields(struct):
        nested = None
        for t in (f.type, *getattr(f.type, "__args__", ())):
            inner = getattr(t, "__args__", (t,))[0] if getattr(t, "__origin__", None) is list else t
            if isinstance(inner, type) and issubclass(inner, msgspec.Struct):
                nested = inner
        if f.type == Raw | UnsetType or f.name == "items":
            continue
        out[f.encode_name] = nested
    return out


_KEYS: dict[type[msgspec.Struct], dict[str, type[msgspec.Struct] | None]] = {
    s: _kept_keys(s) for s in (_Meta, _Container, _Volume, _Spec, _Status, _Object)
}


def project(obj: Any, struct: type[msgspec.Struct] = _Object) -> Any:
    """Keep only the fields the structs above name (for objects read as dicts).

    Values of an unexpected shape are kept as they are, for the engine to report.
    """
    if not isinstance(obj, dict):
        return obj
    keys = _KEYS[struct]
    out: dict[str, Any] = {}
    for key, value in obj.items():
        if key not in keys:
            continue
        nested = keys[key]
        if nested is not None:
            if isinstance(value, list):
                value = [project(v, nested) for v in value]
            else:
                value = project(value, nested)
        out[key] = value
    return out


_decoder = msgspec.json.Decoder(_Object | list[_Object])


@dataclass
class FileObjects:
    """The kept objects of one file, with where each came from in it."""

    source: str
    objects: list[dict[str, Any]] = field(default_factory=list)
    # positions[i]: the index of objects[i] among the file's items (Lists flattened).
    positions: list[int] = field(default_factory=list)
    # The cluster's kube-scheduler configuration, when the file holds one (validated).
    scheduler_configs: list[dict[str, Any]] = field(default_factory=list)


def max_uncompressed_bytes() -> int:
    """The most one file may hold once read: gzip expanded, YAML aliases expanded."""
    return int(settings.MAX_UNCOMPRESSED_BYTES)


def _looks_like_json(data: bytes | memoryview) -> bool:
    head = bytes(data[:64]).lstrip()
    return head[:1] in (b"{", b"[")


def read_file(
    data: bytes | memoryview | list[bytes | memoryview],
    source: str,
    *,
    scrubbed: Counter[str],
    skipped: Counter[str],
) -> FileObjects:
    """The objects of one uploaded file that a snapshot keeps, scrubbed.

    ``data`` may be a one-item list holding the bytes: it is then emptied as
    soon as the bytes are decoded, so a large upload is freed before its
    objects are built (the caller must hold no other reference).

    Raises InvalidInput naming the file (and the document or item) when it
    cannot be read.
    """
    box = data if isinstance(data, list) else [data]
    del data
    if box and is_gzip(box[0]):
        # A gzipped dump (kubectl ... | gzip): its contents, bounded, then read as any file.
        box.append(gunzip(box.pop(), source, max_bytes=max_uncompressed_bytes()))
    # YAML can spell what JSON cannot (.nan, .inf): its objects are always examined.
    suspect = bool(box) and (_may_hold_nul(box[0]) or not _looks_like_json(box[0]))
    if box and len(box[0]) >= FAST_PATH_BYTES and _looks_like_json(box[0]):
        fast_items = _fast_json(box, scrubbed)
        if fast_items is not None:
            return _refuse_unstorable(
                _keep(fast_items, source, scrubbed, skipped, fast=True), suspect=suspect
            )
    return _refuse_unstorable(_read_slow(box.pop(), source, scrubbed, skipped), suspect=suspect)


# How a NUL character can be written in JSON or YAML: searched in the raw bytes
# (fast), so only a file that may hold one has its objects walked.
_NUL_SPELLINGS = (b"\\u0000", b"\\x00", b"\\0", b"\x00")


def _may_hold_nul(data: bytes | memoryview) -> bool:
    raw = data if isinstance(data, bytes) else bytes(data)
    if b"\\" not in raw:
        # Every escaped spelling starts with a backslash, which a dump seldom holds: one
        # quick search instead of slower ones for each spelling.
        return b"\x00" in raw
    return any(spelling in raw for spelling in _NUL_SPELLINGS)


def refuse_unstorable_object(obj: dict[str, Any], source: str, position: int) -> None:
    """InvalidInput naming the object and field when it holds what cannot be stored
    (a NUL character, an integer beyond 64 bits, absurd nesting)."""
    problem = unstorable_value(obj)
    if problem is None:
        return
    field_path, _, why = problem.partition(": ")
    raise _located(obj, source, position, field_path, why)


def refuse_invalid_metadata(obj: dict[str, Any], source: str, position: int) -> None:
    """InvalidInput naming the object when its name, namespace or labels break the API
    server's rules (DNS-1123 names, label syntax and lengths)."""
    problem = metadata_problem(obj)
    if problem is not None:
        raise _located(obj, source, position, *problem)


def refuse_malformed(obj: dict[str, Any], source: str, position: int) -> None:
    """InvalidInput naming the object and field when a storage or DRA field kube-scheduler
    reads (or a pod's reference to one) has the wrong shape (clusters.ingest.shapes)."""
    problem = shape_problem(obj)
    if problem is not None:
        raise _located(obj, source, position, *problem)


def _located(obj: dict[str, Any], source: str, position: int, field: str, why: str) -> InvalidInput:
    found = obj.get("metadata")
    meta: dict[str, Any] = found if isinstance(found, dict) else {}
    namespace, name = meta.get("namespace"), meta.get("name")
    return InvalidInput(
        why,
        source=source,
        index=position,
        kind=obj.get("kind") if isinstance(obj.get("kind"), str) else None,
        # The name may be what is wrong with the object: shown shortened, as a repr.
        namespace=_shown_name(namespace),
        name=_shown_name(name),
        field=field,
    )


def _shown_name(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    if metadata_problem({"metadata": {"name": value}}) is None:
        return value
    return repr(value[:40] + ("…" if len(value) > 40 else ""))


def _refuse_unstorable(found: FileObjects, *, suspect: bool) -> FileObjects:
    pairs = list(zip(found.objects, found.positions, strict=True))
    if suspect:
        for obj, position in pairs:
            refuse_unstorable_object(obj, found.source, position)
    for obj, position in pairs:
        refuse_invalid_metadata(obj, found.source, position)
        if obj.get("kind") in CHECKS:
            refuse_malformed(obj, found.source, position)
    return found


def _read_slow(
    data: bytes | memoryview, source: str, scrubbed: Counter[str], skipped: Counter[str]
) -> FileObjects:
    data = bytes(data)  # a memoryview from the database: the general reader wants bytes
    if not data.strip():
        raise InvalidInput("the file is empty", source=source)
    return _keep(_read_documents(data, source), source, scrubbed, skipped, fast=False)


def _keep(
    items: list[Any], source: str, scrubbed: Counter[str], skipped: Counter[str], *, fast: bool
) -> FileObjects:
    out = FileObjects(source)
    for position, obj in enumerate(items):
        if not isinstance(obj, dict):
            raise InvalidInput("must be an object", source=source, index=position)
        kind = obj.get("kind")
        # The fast path's structs already left out every container's env and envFrom.
        if not scrub_object(obj, scrubbed, pod_specs=not fast):
            continue
        if kind in KEPT_KINDS:
            out.objects.append(obj if fast else project(obj))
            out.positions.append(position)
        elif kind == SCHEDULER_CONFIG_KIND:
            try:
                load_scheduler_config(obj)
            except InvalidInput as e:
                raise e.located(source=source, index=position if len(items) > 1 else None) from None
            out.scheduler_configs.append(obj)
        elif isinstance(kind, str) and kind:
            skipped[kind] += 1
        else:
            keys = ", ".join(sorted(str(k) for k in obj)[:5]) or "none"
            raise InvalidInput(
                f"is not a Kubernetes object: it has no kind (its keys: {keys}). Upload what "
                "kubectl get nodes,pods,pdb,priorityclasses -A -o json (or -o yaml) prints.",
                source=source,
                # A file of one document needs no "items[0]" to say where.
                index=position if len(items) > 1 else None,
            )
    return out


def _read_documents(data: bytes, source: str) -> list[Any]:
    try:
        return read_documents(data, source, max_bytes=max_uncompressed_bytes())
    except InvalidInput:
        raise
    except RecursionError:
        raise InvalidInput("nested too deeply to read", source=source) from None
    except (ValueError, TypeError) as exc:
        raise InvalidInput(f"cannot be read: {exc}", source=source) from None


def _fast_json(box: list[bytes | memoryview], scrubbed: Counter[str]) -> list[Any] | None:
    """Decode a kubectl JSON dump keeping only the snapshot's fields, or None to fall back.

    Empties ``box`` once the decoded structs are known to be usable.
    """
    try:
        decoded = _decoder.decode(box[0])
    except (msgspec.DecodeError, RecursionError):
        return None
    if isinstance(decoded, list):
        top = decoded
    elif decoded.items is not UNSET:
        top = decoded.items
    else:
        top = [decoded]
    if any(obj.items is not UNSET for obj in top):
        return None  # nested Lists: leave them to the general reader
    box.clear()  # the structs hold everything kept: free the upload's bytes

    items: list[Any] = []
    append = items.append
    to_builtins = msgspec.to_builtins
    for i in range(len(top)):
        obj = top[i]
        top[i] = None  # free each struct once converted
        meta = obj.metadata
        if meta is not UNSET and meta.managed_fields is not UNSET:
            scrubbed["managedFields"] += 1
            meta.managed_fields = UNSET
        spec = obj.spec
        if spec is not UNSET:
            for containers in (spec.containers, spec.init_containers):
                if containers is UNSET:
                    continue
                for c in containers:
                    if c.env is not UNSET:
                        env = bytes(c.env)
                        scrubbed["envValues"] += env.count(b'"value"') + env.count(b'"valueFrom"')
                        c.env = UNSET
                    if c.env_from is not UNSET:
                        scrubbed["envFrom"] += 1
                        c.env_from = UNSET
        if obj.kind in ("Secret", "ConfigMap"):
            # Their payload was never decoded; the scrubber counts and drops them.
            append({"kind": obj.kind})
            continue
        append(to_builtins(obj))
    return items
