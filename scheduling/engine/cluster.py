"""The loaded cluster and the scheduler's per-node view of it (NodeInfo).

``Cluster`` is built once by ``load_cluster`` and never changes afterwards. Every
analysis works on ``NodeInfo.clone()`` copies where it needs to add or remove pods
(nominated pods, preemption victims): copy-on-write per node, never the whole cluster.
"""

from __future__ import annotations

import copy
import gc
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from .collector import collector_paused
from .dra.objects import (
    DeviceClass,
    DraObjects,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)
from .errors import InvalidInput
from .objects import PDB, Node, Pod, PriorityClass, ResourceQuota, is_mapping
from .priority import (
    HypotheticalClass,
    MissingClassPod,
    PriorityResolver,
    class_warnings,
    missing_class_warnings,
)
from .volumes.storage import (
    EMPTY_STORAGE,
    NAMESPACED_STORAGE_KINDS,
    NO_STORAGE_WARNING,
    STORAGE_KINDS,
    Storage,
)

# The default profile's schedulerName: the only pods whose nominations it keeps.
DEFAULT_SCHEDULER_NAME = "default-scheduler"
HostPort = tuple[str, str, int]


def _has_pod_affinity(pod: Pod) -> bool:
    a = pod.affinity
    return bool(a and (a.get("podAffinity") or a.get("podAntiAffinity")))


def _has_required_anti_affinity(pod: Pod) -> bool:
    a = pod.affinity
    return bool(
        a and (a.get("podAntiAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    )


def api_list_key(pod: Pod) -> str:
    """Where the API server lists a pod: etcd's key order, "namespace/name" as bytes."""
    return f"{pod.namespace}/{pod.name}"


class NodeInfo:
    """framework.NodeInfo: a node, the pods on it and their aggregated requests.

    ``requested`` sums the pods' ``requests`` (what Filter compares against
    allocatable); ``non_zero_cpu``/``non_zero_memory`` sum NonZeroRequested (what
    LeastAllocated scores). ``pods_with_affinity`` / ``pods_with_required_anti_affinity``
    mirror PodsWithAffinity / PodsWithRequiredAntiAffinity for InterPodAffinity.
    """

    __slots__ = (
        "name",
        "node",
        "non_zero_cpu",
        "non_zero_memory",
        "pods",
        "pods_with_affinity",
        "pods_with_required_anti_affinity",
        "preemption_order",
        "requested",
        "used_ports",
    )

    def __init__(self, node: Node) -> None:
        self.node = node
        self.name = node.name
        self.pods: list[Pod] = []
        self.requested: dict[str, int] = {}
        self.non_zero_cpu = 0
        self.non_zero_memory = 0
        self.used_ports: dict[HostPort, int] = {}
        self.pods_with_affinity: list[Pod] = []
        self.pods_with_required_anti_affinity: list[Pod] = []
        # preemption.victims.ImportanceOrder of these pods, made by the first dry run that
        # needs it and dropped whenever the pods change: later dry runs on an unchanged
        # node (every what-if on a cached cluster) neither filter nor sort its pods again.
        self.preemption_order: Any = None

    def clone(self) -> NodeInfo:
        """A copy whose pod list, totals and ports can change without touching this one."""
        c = NodeInfo.__new__(NodeInfo)
        c.node = self.node
        c.name = self.name
        c.pods = list(self.pods)
        c.requested = dict(self.requested)
        c.non_zero_cpu = self.non_zero_cpu
        c.non_zero_memory = self.non_zero_memory
        c.used_ports = dict(self.used_ports)
        c.pods_with_affinity = list(self.pods_with_affinity)
        c.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        c.preemption_order = self.preemption_order  # the same pods, until either changes
        return c

    def add_pod(self, pod: Pod) -> None:
        self.preemption_order = None
        self.pods.append(pod)
        req = self.requested
        for k, v in pod.requests.items():
            req[k] = req.get(k, 0) + v
        self.non_zero_cpu += pod.non_zero_cpu
        self.non_zero_memory += pod.non_zero_memory
        for hp in pod.host_ports:
            self.used_ports[hp] = self.used_ports.get(hp, 0) + 1
        if pod.affinity is not None and _has_pod_affinity(pod):
            self.pods_with_affinity.append(pod)
            if _has_required_anti_affinity(pod):
                self.pods_with_required_anti_affinity.append(pod)

    def remove_pod(self, pod: Pod) -> None:
        self.preemption_order = None
        # Identity first: the same Pod object is what was added.
        for i, p in enumerate(self.pods):
            if p is pod or p.uid == pod.uid:
                # NodeInfo.RemovePod: the last pod takes the removed one's place.
                self.pods[i] = self.pods[-1]
                self.pods.pop()
                break
        else:
            raise KeyError(f"pod {pod.key} not found on node {self.name}")
        req = self.requested
        for k, v in pod.requests.items():
            req[k] = req.get(k, 0) - v
        self.non_zero_cpu -= pod.non_zero_cpu
        self.non_zero_memory -= pod.non_zero_memory
        for hp in pod.host_ports:
            n = self.used_ports.get(hp, 0) - 1
            if n > 0:
                self.used_ports[hp] = n
            else:
                self.used_ports.pop(hp, None)
        for lst in (self.pods_with_affinity, self.pods_with_required_anti_affinity):
            for i, p in enumerate(lst):
                if p is pod or p.uid == pod.uid:
                    del lst[i]
                    break


class Cluster:
    """A snapshot: nodes, pods, PDBs and PriorityClasses, with the indexes analyses use.

    ``quotas`` are the snapshot's ResourceQuotas (the plan reads their PriorityClass
    scopes; no analysis does). ``missing_class_pods`` lists the pods that name a
    PriorityClass the snapshot does not hold, with the priority they were given;
    ``defaulted_pods`` the keys of pods that named no class and carried no priority,
    to which the globalDefault class was given at load as admission would have.
    """

    # The what-if's own PriorityClasses on a view of a snapshot (hypothetical.py); a
    # class attribute, so a cluster stored before it existed reads as having none.
    hypothetical_classes: tuple[HypotheticalClass, ...] = ()
    # bound_pods_by_namespace(), made when first asked (a class attribute: a cluster
    # stored before it existed reads as not having made it).
    _bound_by_namespace: dict[str, list[tuple[int, Pod]]] | None = None
    # The storage objects the volume plugins read (a class attribute: a cluster stored
    # before they were read has none).
    storage: Storage = EMPTY_STORAGE
    # The DRA objects (dra/objects.py); a class attribute, so a cluster stored before
    # they were read has none.
    dra: DraObjects = DraObjects()

    def __init__(
        self,
        nodes: list[Node],
        pods: list[Pod],
        pdbs: list[PDB],
        priority_classes: list[PriorityClass],
        *,
        warnings: list[str] | None = None,
        skipped: dict[str, int] | None = None,
        quotas: list[ResourceQuota] | None = None,
        missing_class_pods: list[MissingClassPod] | None = None,
        defaulted_pods: list[str] | None = None,
        storage: Storage | None = None,
    ) -> None:
        self.nodes = nodes
        self.pods = pods
        self.pdbs = pdbs
        self.priority_classes = priority_classes
        self.warnings = warnings or []
        self.skipped = skipped or {}
        self.quotas = quotas or []
        self.missing_class_pods = missing_class_pods or []
        self.defaulted_pods = defaulted_pods or []
        if storage is not None:
            self.storage = storage
        self.resolver = PriorityResolver(priority_classes)
        self.node_infos: list[NodeInfo] = []
        self.node_info_by_name: dict[str, NodeInfo] = {}
        # Pending pods with status.nominatedNodeName, by that node (the scheduler's nominator).
        self.nominated: dict[str, list[Pod]] = defaultdict(list)
        # How many nodes hold each image name (ImageLocality's spread), and the size the
        # scheduler cache keeps for it: the one reported by the first node it saw.
        self.image_num_nodes: dict[str, int] = defaultdict(int)
        self.image_size: dict[str, int] = {}
        self._pdb_index: dict[str, tuple[int, ...]] | None = None
        self._pdb_by_label: dict[tuple[str, str, str], list[int]] = {}
        self._pdb_scan: dict[str, list[int]] = {}
        self._build()

    def _build(self) -> None:
        for node in self.nodes:
            ni = NodeInfo(node)
            self.node_infos.append(ni)
            self.node_info_by_name[node.name] = ni
            for img in node.images:
                self.image_num_nodes[img] += 1
        # The cache is filled from an informer; nodes arrive in name order here.
        for node in sorted(self.nodes, key=lambda n: n.name):
            for img, size in node.images.items():
                self.image_size.setdefault(img, size)
        # The scheduler cache fills a node's pod list in the informer's list order, which
        # is the API server's: by key, "namespace/name" (not the order of the dump). The
        # order decides how sort.Slice leaves equally important victims (gosort).
        for pod in sorted(self.pods, key=api_list_key):
            if pod.phase in ("Succeeded", "Failed"):
                continue  # the scheduler's pod informer never sees them
            if pod.node_name:
                bound = self.node_info_by_name.get(pod.node_name)
                if bound is not None:
                    bound.add_pod(pod)
            elif pod.nominated_node_name and pod.scheduler_name == DEFAULT_SCHEDULER_NAME:
                # Only pods of this scheduler's profile reach its queue and nominator.
                self.nominated[pod.nominated_node_name].append(pod)

    def pdbs_for_pod(self, pod: Pod) -> tuple[int, ...]:
        """Indexes into ``pdbs`` of the budgets matching ``pod``; computed once per cluster."""
        if self._pdb_index is None:
            self.index_pdbs()
        assert self._pdb_index is not None
        got = self._pdb_index.get(pod.uid)
        if got is None:
            got = self._match_pdbs(pod)
        return got

    def with_pdbs(self, extra: Sequence[PDB]) -> Cluster:
        """A view of this cluster with more budgets (advice's protect); this cluster, cached
        and shared between analyses, is not changed. Only the pods the new budgets select
        are matched again, and only their nodes' infos are copied: a node's cached
        preemption order holds its pods' budgets."""
        if self._pdb_index is None:
            self.index_pdbs()
        assert self._pdb_index is not None
        view = copy.copy(self)
        first = len(self.pdbs)
        view.pdbs = [*self.pdbs, *extra]
        view._index_selectors()
        index = dict(self._pdb_index)
        infos = list(self.node_infos)
        changed: set[int] = set()
        by_namespace = self.bound_pods_by_namespace()
        for i in range(first, len(view.pdbs)):
            pdb = view.pdbs[i]
            for n, pod in by_namespace.get(pdb.namespace, ()):
                if pdb.matches(pod):
                    index[pod.uid] = (*index.get(pod.uid, ()), i)
                    changed.add(n)
        for n in changed:
            infos[n] = infos[n].clone()
            infos[n].preemption_order = None
        view._pdb_index = index
        view.node_infos = infos
        view.node_info_by_name = {ni.name: ni for ni in infos}
        return view

    def with_pdbs_replacing(self, extra: Sequence[PDB]) -> Cluster:
        """with_pdbs, where a budget of ``extra`` replaces this cluster's budget of the same
        namespace and name (a manifest applied over the snapshot). Replacing one moves the
        budgets' indexes: they are matched again, and the infos of the nodes whose pods
        sit in the budgets' namespaces are copied."""
        names = {(p.namespace, p.name) for p in extra}
        if not any((p.namespace, p.name) in names for p in self.pdbs):
            return self.with_pdbs(extra)
        view = copy.copy(self)
        view.pdbs = [p for p in self.pdbs if (p.namespace, p.name) not in names] + list(extra)
        view.index_pdbs()
        namespaces = {p.namespace for p in extra}
        infos = list(self.node_infos)
        for n, ni in enumerate(infos):
            if any(pod.namespace in namespaces for pod in ni.pods):
                infos[n] = ni.clone()
                infos[n].preemption_order = None
        view.node_infos = infos
        view.node_info_by_name = {ni.name: ni for ni in infos}
        return view

    def bound_pods_by_namespace(self) -> dict[str, list[tuple[int, Pod]]]:
        """Each namespace's bound pods with the index of their node's info; made once."""
        if self._bound_by_namespace is None:
            found: dict[str, list[tuple[int, Pod]]] = defaultdict(list)
            for n, ni in enumerate(self.node_infos):
                for pod in ni.pods:
                    found[pod.namespace].append((n, pod))
            self._bound_by_namespace = dict(found)
        return self._bound_by_namespace

    def _index_selectors(self) -> None:
        # Budgets are indexed by one of their matchLabels pairs so each pod only checks the
        # budgets that could match it; budgets with expressions only are scanned per namespace.
        by_label: dict[tuple[str, str, str], list[int]] = defaultdict(list)
        scan: dict[str, list[int]] = defaultdict(list)
        for i, pdb in enumerate(self.pdbs):
            sel = pdb.label_selector
            if sel.nothing or sel.empty:
                continue
            anchor = next(
                ((k, next(iter(v))) for k, op, v in sel.requirements if op == "In" and len(v) == 1),
                None,
            )
            if anchor is None:
                scan[pdb.namespace].append(i)
            else:
                by_label[(pdb.namespace, anchor[0], anchor[1])].append(i)
        self._pdb_by_label = dict(by_label)
        self._pdb_scan = dict(scan)

    def index_pdbs(self) -> None:
        """Match every bound pod to its budgets once (not once per node and analysis)."""
        self._index_selectors()
        index: dict[str, tuple[int, ...]] = {}
        # The pods of one workload share one labels dict (see objects._shared_str_map),
        # which nothing changes while they live: matched once per namespace.
        by_labels: dict[tuple[str, int], tuple[int, ...]] = {}
        for ni in self.node_infos:
            for pod in ni.pods:
                labels_key = (pod.namespace, id(pod.labels))
                found = by_labels.get(labels_key)
                if found is None:
                    found = by_labels[labels_key] = self._match_pdbs(pod)
                index[pod.uid] = found
        self._pdb_index = index

    def _match_pdbs(self, pod: Pod) -> tuple[int, ...]:
        if not pod.labels:
            return ()
        pdbs = self.pdbs
        labels = pod.labels
        ns = pod.namespace
        found: list[int] = []
        by_label = self._pdb_by_label
        for k, v in labels.items():
            cands = by_label.get((ns, k, v))
            if cands:
                found.extend(i for i in cands if pdbs[i].label_selector.matches(labels))
        for i in self._pdb_scan.get(ns, ()):
            if pdbs[i].label_selector.matches(labels):
                found.append(i)
        if not found:
            return ()
        return tuple(sorted(set(found)))


def _flatten(objects: Any, source: str | None) -> list[tuple[int, Any]]:
    if isinstance(objects, Mapping):
        if (
            objects.get("kind") == "List"
            or ("items" in objects and "kind" not in objects)
            or str(objects.get("kind", "")).endswith("List")
        ):
            items = objects.get("items")
            if items is None:
                items = []
            if not isinstance(items, list):
                raise InvalidInput("must be a list", source=source, field="items")
        else:
            items = [objects]
    elif isinstance(objects, list):
        items = objects
    else:
        raise InvalidInput("expected a v1 List or a list of objects", source=source)
    out: list[tuple[int, Any]] = []
    for i, obj in enumerate(items):
        if (
            is_mapping(obj)
            and "items" in obj  # first: an object seldom has items, nearly always a kind
            and str(obj.get("kind", "")).endswith("List")
        ):
            out.extend((i, o) for _, o in _flatten(obj, source))
        else:
            out.append((i, obj))
    return out


_NAMESPACED_DRA_KINDS = ("ResourceClaim", "ResourceClaimTemplate")
_DRA_KINDS = frozenset({"DeviceClass", "ResourceSlice", *_NAMESPACED_DRA_KINDS})


def _add_dra(dra: DraObjects, kind: str, obj: Mapping[str, Any]) -> None:
    api = obj.get("apiVersion")
    if isinstance(api, str) and not api.startswith("resource.k8s.io/"):
        raise InvalidInput(f"{kind} of {api} is not resource.k8s.io", field="apiVersion")
    if kind == "DeviceClass":
        c = DeviceClass.from_dict(obj)
        dra.classes[c.name] = c
    elif kind == "ResourceSlice":
        dra.slices.append(ResourceSlice.from_dict(obj))
    elif kind == "ResourceClaim":
        claim = ResourceClaim.from_dict(obj)
        dra.claims[claim.key] = claim
    else:
        t = ResourceClaimTemplate.from_dict(obj)
        dra.templates[f"{t.namespace}/{t.name}"] = t


def load_cluster(
    objects: list[dict[str, Any]] | dict[str, Any], *, source: str | None = None
) -> Cluster:
    """Build a Cluster from a v1 List or a list of objects; other kinds are counted and skipped.

    Every pod here is one the API server already admitted: one naming a PriorityClass
    the snapshot lacks keeps its priority (see ``PriorityResolver.resolve_admitted``)
    instead of being refused as a pod submitted now would be.
    """
    with collector_paused():  # building a large object graph
        nodes: list[Node] = []
        pods: list[Pod] = []
        pdbs: list[PDB] = []
        classes: list[PriorityClass] = []
        quotas: list[ResourceQuota] = []
        storage = Storage()
        dra = DraObjects()
        skipped: dict[str, int] = {}
        seen_nodes: set[str] = set()
        for index, obj in _flatten(objects, source):
            if not is_mapping(obj):
                raise InvalidInput("must be an object", source=source, index=index)
            kind = obj.get("kind")
            raw_meta = obj.get("metadata")
            meta: Mapping[str, Any] = raw_meta if is_mapping(raw_meta) else {}
            name = meta.get("name")
            name = name if isinstance(name, str) else None
            namespace = meta.get("namespace")
            namespace = namespace if isinstance(namespace, str) else None
            try:
                if kind == "Pod":
                    pods.append(Pod.from_dict(obj))
                elif kind == "Node":
                    node = Node.from_dict(obj)
                    if node.name in seen_nodes:
                        raise InvalidInput("duplicate node name", field="metadata.name")
                    seen_nodes.add(node.name)
                    nodes.append(node)
                elif kind == "PodDisruptionBudget":
                    pdbs.append(PDB.from_dict(obj))
                elif kind == "PriorityClass":
                    classes.append(PriorityClass.from_dict(obj))
                elif kind == "ResourceQuota":
                    quotas.append(ResourceQuota.from_dict(obj))
                elif kind in STORAGE_KINDS:
                    storage.add(STORAGE_KINDS[kind](obj))
                elif kind in _DRA_KINDS:
                    _add_dra(dra, kind, obj)
                elif isinstance(kind, str) and kind:
                    skipped[kind] = skipped.get(kind, 0) + 1
                else:
                    raise InvalidInput("is required", field="kind")
            except InvalidInput as e:
                raise e.located(
                    source=source,
                    index=index,
                    kind=kind if isinstance(kind, str) else None,
                    namespace=(namespace or "default")
                    if kind
                    in ("Pod", "PodDisruptionBudget", "ResourceQuota", *_NAMESPACED_DRA_KINDS)
                    or kind in NAMESPACED_STORAGE_KINDS
                    else None,
                    name=name,
                ) from None
        resolver = PriorityResolver(classes)
        known = resolver.by_name
        missing: list[MissingClassPod] = []
        defaulted: list[str] = []
        pods_without_priority = 0
        for pod in pods:
            name = pod.priority_class_name
            if name and name not in known:
                record = resolver.resolve_admitted(pod)
                if record is not None:
                    missing.append(record)
            elif pod.spec_priority is None or pod.preemption_policy is None:
                if pod.spec_priority is None and not name:
                    pods_without_priority += 1
                    if resolver.default is not None:
                        defaulted.append(pod.key)
                resolver.resolve(pod)
        warnings = class_warnings(classes, pods_without_priority=pods_without_priority)
        warnings += missing_class_warnings(missing, resolver.default)
        if not storage and any(v.claim is not None for p in pods for v in p.volumes):
            warnings.append(NO_STORAGE_WARNING)
        cluster = Cluster(
            nodes,
            pods,
            pdbs,
            classes,
            warnings=warnings,
            skipped=skipped,
            quotas=quotas,
            missing_class_pods=missing,
            defaulted_pods=defaulted,
            storage=storage if storage else None,
        )
        if dra:
            dra.index()
            cluster.dra = dra
        cluster.index_pdbs()
    gc.freeze()  # the loaded graph is long-lived: keep it out of later collections
    return cluster
