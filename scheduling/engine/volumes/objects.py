"""The storage objects, built once from plain dicts: only the fields kube-scheduler's
volume plugins read (VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone).
Secret references (a CSI source's nodePublishSecretRef, ...) are never kept."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InvalidInput
from ..fields import list_of as _list
from ..fields import mapping as _mapping
from ..fields import str_map as _str_map
from ..labels import LabelSelector, NodeSelector
from ..quantity import QuantityError, value
from .translation import InTreeSource, in_tree_source

# What the PV controller writes on a claim it bound (pv.kubernetes.io/bind-completed):
# without it a claim naming a volume is not yet bound for the scheduler.
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
# The node an unbound WaitForFirstConsumer claim is provisioned for.
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
# The storage class of a claim or volume before spec.storageClassName existed.
ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
# CSINode: the in-tree plugins whose volumes this node mounts through CSI.
ANN_MIGRATED_PLUGINS = "storage.alpha.kubernetes.io/migrated-plugins"

READ_WRITE_ONCE_POD = "ReadWriteOncePod"
CLAIM_LOST = "Lost"
VOLUME_AVAILABLE = "Available"
BINDING_IMMEDIATE = "Immediate"
BINDING_WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"
# A StorageClass whose volumes are only ever created by hand (local volumes).
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"
FILESYSTEM = "Filesystem"


def _name(meta: Mapping[str, Any]) -> str:
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        raise InvalidInput("is required", field="metadata.name")
    return name


def _strings(raw: Any, field: str) -> tuple[str, ...]:
    out = []
    for i, v in enumerate(_list(raw, field)):
        if not isinstance(v, str):
            raise InvalidInput("must be a string", field=f"{field}[{i}]")
        out.append(v)
    return tuple(out)


def _bytes(raw: Any, field: str) -> int | None:
    """A storage quantity in bytes (Quantity.Value()), None when absent."""
    if raw is None:
        return None
    try:
        return value(raw)
    except QuantityError as e:
        raise InvalidInput(str(e), field=field) from None


def _storage_request(raw: Any, field: str) -> int | None:
    return _bytes(_mapping(raw, field).get("storage"), f"{field}.storage")


def _class_of(meta: Mapping[str, Any], spec: Mapping[str, Any]) -> str:
    """GetPersistentVolume(Claim)Class: the beta annotation first, then the spec field."""
    annotations = meta.get("annotations")
    if isinstance(annotations, Mapping) and ANN_BETA_STORAGE_CLASS in annotations:
        return str(annotations[ANN_BETA_STORAGE_CLASS] or "")
    return str(spec.get("storageClassName") or "")


class PersistentVolumeClaim:
    """v1.PersistentVolumeClaim as the volume plugins read it. ``owner_uid`` is the uid
    of its controller ownerReference when that is a Pod (a generic ephemeral volume's
    claim must be controlled by its pod)."""

    __slots__ = (
        "access_modes",
        "annotations",
        "bind_completed",
        "deleting",
        "key",
        "name",
        "namespace",
        "owner_uid",
        "phase",
        "request",
        "selected_node",
        "selector",
        "storage_class",
        "uid",
        "volume_mode",
        "volume_name",
    )

    access_modes: frozenset[str]
    annotations: dict[str, str]
    bind_completed: bool
    deleting: bool
    key: str
    name: str
    namespace: str
    owner_uid: str | None
    phase: str
    request: int | None
    selected_node: str | None
    selector: LabelSelector | None
    storage_class: str
    uid: str
    volume_mode: str
    volume_name: str

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> PersistentVolumeClaim:
        meta = _mapping(obj.get("metadata"), "metadata")
        spec = _mapping(obj.get("spec"), "spec")
        status = _mapping(obj.get("status"), "status")
        c = cls.__new__(cls)
        c.name = _name(meta)
        c.namespace = str(meta.get("namespace") or "default")
        c.key = f"{c.namespace}/{c.name}"
        c.uid = str(meta.get("uid") or "")
        c.annotations = _str_map(meta.get("annotations"), "metadata.annotations")
        c.bind_completed = ANN_BIND_COMPLETED in c.annotations
        c.selected_node = c.annotations.get(ANN_SELECTED_NODE)
        c.deleting = meta.get("deletionTimestamp") is not None
        c.owner_uid = None
        for i, ref in enumerate(_list(meta.get("ownerReferences"), "metadata.ownerReferences")):
            ref = _mapping(ref, f"metadata.ownerReferences[{i}]")
            if ref.get("controller") is True:
                c.owner_uid = str(ref.get("uid") or "")
        c.volume_name = str(spec.get("volumeName") or "")
        c.storage_class = _class_of(meta, spec)
        c.access_modes = frozenset(_strings(spec.get("accessModes"), "spec.accessModes"))
        c.volume_mode = str(spec.get("volumeMode") or FILESYSTEM)
        resources = _mapping(spec.get("resources"), "spec.resources")
        c.request = _storage_request(resources.get("requests"), "spec.resources.requests")
        selector = spec.get("selector")
        c.selector = LabelSelector.parse(selector, "spec.selector") if selector else None
        c.phase = str(status.get("phase") or "Pending")
        return c

    @property
    def bound(self) -> bool:
        """isPVCFullyBound: a volume named and the PV controller's bind-completed mark."""
        return bool(self.volume_name) and self.bind_completed


class PersistentVolume:
    """v1.PersistentVolume: its node affinity, zone labels, CSI identity (or in-tree
    source), claimRef, capacity and what static binding compares."""

    __slots__ = (
        "access_modes",
        "capacity",
        "claim_ref",
        "csi_driver",
        "csi_handle",
        "deleting",
        "in_tree",
        "labels",
        "name",
        "node_affinity",
        "phase",
        "storage_class",
        "volume_mode",
    )

    access_modes: frozenset[str]
    capacity: int
    claim_ref: tuple[str, str, str] | None
    csi_driver: str
    csi_handle: str
    deleting: bool
    in_tree: InTreeSource | None
    labels: dict[str, str]
    name: str
    node_affinity: NodeSelector | None
    phase: str
    storage_class: str
    volume_mode: str

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> PersistentVolume:
        meta = _mapping(obj.get("metadata"), "metadata")
        spec = _mapping(obj.get("spec"), "spec")
        status = _mapping(obj.get("status"), "status")
        v = cls.__new__(cls)
        v.name = _name(meta)
        v.labels = _str_map(meta.get("labels"), "metadata.labels")
        v.deleting = meta.get("deletionTimestamp") is not None
        v.storage_class = _class_of(meta, spec)
        v.access_modes = frozenset(_strings(spec.get("accessModes"), "spec.accessModes"))
        v.volume_mode = str(spec.get("volumeMode") or FILESYSTEM)
        v.capacity = _storage_request(spec.get("capacity"), "spec.capacity") or 0
        ref = spec.get("claimRef")
        if ref is not None:
            ref = _mapping(ref, "spec.claimRef")
            v.claim_ref = (
                str(ref.get("namespace") or ""),
                str(ref.get("name") or ""),
                str(ref.get("uid") or ""),
            )
        else:
            v.claim_ref = None
        affinity = _mapping(spec.get("nodeAffinity"), "spec.nodeAffinity").get("required")
        v.node_affinity = (
            NodeSelector.parse(affinity, "spec.nodeAffinity.required")
            if affinity is not None
            else None
        )
        csi = spec.get("csi")
        if csi is not None:
            csi = _mapping(csi, "spec.csi")
            v.csi_driver = str(csi.get("driver") or "")
            v.csi_handle = str(csi.get("volumeHandle") or "")
        else:
            v.csi_driver = v.csi_handle = ""
        # The in-tree source a migrated CSI driver takes over: (plugin, volume id).
        v.in_tree = in_tree_source(spec, "spec")
        v.phase = str(status.get("phase") or "")
        return v

    def bound_to(self, claim: PersistentVolumeClaim) -> bool:
        """IsVolumeBoundToClaim: the claimRef names the claim (and its uid, when set)."""
        ref = self.claim_ref
        if ref is None:
            return False
        return ref[1] == claim.name and ref[0] == claim.namespace and ref[2] in ("", claim.uid)


class TopologySelectorTerm:
    """One StorageClass allowedTopologies term: every labelExpression must match."""

    __slots__ = ("expressions",)

    def __init__(self, expressions: list[tuple[str, frozenset[str]]]) -> None:
        self.expressions = expressions

    def matches(self, labels: Mapping[str, str]) -> bool:
        return all(labels.get(k) in values for k, values in self.expressions)


# The DefaultStorageClass admission plugin gives a claim without a class this one.
ANN_DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class"


class StorageClass:
    __slots__ = (
        "allowed_topologies",
        "binding_mode",
        "created",
        "is_default",
        "name",
        "provisioner",
    )

    allowed_topologies: list[TopologySelectorTerm]
    binding_mode: str
    created: str
    is_default: bool
    name: str
    provisioner: str

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> StorageClass:
        meta = _mapping(obj.get("metadata"), "metadata")
        s = cls.__new__(cls)
        s.name = _name(meta)
        annotations = _str_map(meta.get("annotations"), "metadata.annotations")
        s.is_default = annotations.get(ANN_DEFAULT_CLASS) == "true"
        s.created = str(meta.get("creationTimestamp") or "")
        s.provisioner = str(obj.get("provisioner") or "")
        # The API server defaults an unset mode to Immediate.
        mode = obj.get("volumeBindingMode") or BINDING_IMMEDIATE
        if mode not in (BINDING_IMMEDIATE, BINDING_WAIT_FOR_FIRST_CONSUMER):
            raise InvalidInput(
                f'Unsupported value: {mode!r}: supported values: "{BINDING_IMMEDIATE}", '
                f'"{BINDING_WAIT_FOR_FIRST_CONSUMER}"',
                field="volumeBindingMode",
            )
        s.binding_mode = mode
        terms: list[TopologySelectorTerm] = []
        for i, term in enumerate(_list(obj.get("allowedTopologies"), "allowedTopologies")):
            where = f"allowedTopologies[{i}]"
            term = _mapping(term, where)
            exprs: list[tuple[str, frozenset[str]]] = []
            raw = _list(term.get("matchLabelExpressions"), f"{where}.matchLabelExpressions")
            for j, e in enumerate(raw):
                e = _mapping(e, f"{where}.matchLabelExpressions[{j}]")
                exprs.append(
                    (
                        str(e.get("key") or ""),
                        frozenset(
                            _strings(e.get("values"), f"{where}.matchLabelExpressions[{j}].values")
                        ),
                    )
                )
            terms.append(TopologySelectorTerm(exprs))
        s.allowed_topologies = terms
        return s

    @property
    def wait_for_first_consumer(self) -> bool:
        return self.binding_mode == BINDING_WAIT_FOR_FIRST_CONSUMER

    def topology_allows(self, labels: Mapping[str, str]) -> bool:
        """MatchTopologySelectorTerms: no terms allow every node; else any term."""
        if not self.allowed_topologies:
            return True
        return any(t.matches(labels) for t in self.allowed_topologies)


class CSINode:
    """storage.k8s.io/v1 CSINode: each driver's attach limit (None: no limit) and the
    in-tree plugins migrated to CSI on this node."""

    __slots__ = ("limits", "migrated_plugins", "name")

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> CSINode:
        meta = _mapping(obj.get("metadata"), "metadata")
        spec = _mapping(obj.get("spec"), "spec")
        n = cls.__new__(cls)
        n.name = _name(meta)
        annotations = _str_map(meta.get("annotations"), "metadata.annotations")
        mpa = annotations.get(ANN_MIGRATED_PLUGINS, "")
        n.migrated_plugins = frozenset(mpa.split(",")) if mpa else frozenset()
        n.limits = {}
        for i, d in enumerate(_list(spec.get("drivers"), "spec.drivers")):
            where = f"spec.drivers[{i}]"
            d = _mapping(d, where)
            name = d.get("name")
            if not isinstance(name, str) or not name:
                raise InvalidInput("is required", field=f"{where}.name")
            count = _mapping(d.get("allocatable"), f"{where}.allocatable").get("count")
            if count is None:
                continue
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise InvalidInput(
                    "must be a whole number, 0 or more", field=f"{where}.allocatable.count"
                )
            n.limits[name] = count
        return n

    limits: dict[str, int]
    migrated_plugins: frozenset[str]
    name: str


class CSIDriver:
    __slots__ = ("name", "storage_capacity")

    name: str
    storage_capacity: bool

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> CSIDriver:
        meta = _mapping(obj.get("metadata"), "metadata")
        spec = _mapping(obj.get("spec"), "spec")
        d = cls.__new__(cls)
        d.name = _name(meta)
        d.storage_capacity = spec.get("storageCapacity") is True
        return d


class VolumeAttachment:
    """A volume attached (or being attached) to a node by a CSI attacher."""

    __slots__ = ("attacher", "name", "node_name", "pv_name")

    attacher: str
    name: str
    node_name: str
    pv_name: str

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> VolumeAttachment:
        meta = _mapping(obj.get("metadata"), "metadata")
        spec = _mapping(obj.get("spec"), "spec")
        a = cls.__new__(cls)
        a.name = _name(meta)
        a.attacher = str(spec.get("attacher") or "")
        a.node_name = str(spec.get("nodeName") or "")
        source = _mapping(spec.get("source"), "spec.source")
        a.pv_name = str(source.get("persistentVolumeName") or "")
        return a


class CSIStorageCapacity:
    """Capacity of one storage class in one topology segment (nodeTopology)."""

    __slots__ = ("capacity", "maximum_volume_size", "name", "node_topology", "storage_class")

    capacity: int | None
    maximum_volume_size: int | None
    name: str
    node_topology: LabelSelector | None
    storage_class: str

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> CSIStorageCapacity:
        meta = _mapping(obj.get("metadata"), "metadata")
        c = cls.__new__(cls)
        c.name = _name(meta)
        c.storage_class = str(obj.get("storageClassName") or "")
        c.capacity = _bytes(obj.get("capacity"), "capacity")
        c.maximum_volume_size = _bytes(obj.get("maximumVolumeSize"), "maximumVolumeSize")
        topology = obj.get("nodeTopology")
        c.node_topology = (
            LabelSelector.parse(topology, "nodeTopology") if topology is not None else None
        )
        return c

    def sufficient(self, size: int) -> bool:
        """capacitySufficient: maximumVolumeSize when given (more precise), else capacity."""
        limit = self.maximum_volume_size if self.maximum_volume_size is not None else self.capacity
        return limit is not None and limit >= size
