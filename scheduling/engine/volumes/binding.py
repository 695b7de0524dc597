"""What a rollout assumes of the claims its pods create and bind (no PV controller or
provisioner runs offline): a missing claim is created by its StatefulSet controller,
and an unbound WaitForFirstConsumer claim is bound where its pod lands (to the
smallest matching static volume, or to a volume provisioned there), after which it
pins every later pod using it for the rest of the run.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from ..cluster import NodeInfo
from ..labels import NodeSelector, NodeSelectorTerm
from ..objects import Pod
from ..plugins.volumebinding import find_matching_volume, is_delay_binding
from .objects import PersistentVolume, PersistentVolumeClaim
from .storage import Storage

LABEL_ZONE = "topology.kubernetes.io/zone"

ASSUME_PROVISIONED = (
    "a claim under a WaitForFirstConsumer class is assumed bound where its pod lands "
    "(the provisioner succeeds, its volume in the node's zone; or the smallest matching "
    "static volume is taken) and pins that pod's later replacements"
)


def default_class(storage: Storage) -> str | None:
    """The DefaultStorageClass admission plugin's class: the newest marked default."""
    marked = [c for c in storage.classes.values() if c.is_default]
    if not marked:
        return None
    return max(marked, key=lambda c: (c.created, c.name)).name


def create_claims(storage: Storage, raw_claims: Sequence[Mapping[str, Any]]) -> Storage | None:
    """The storage with the claims that do not exist yet (None: all exist, or the
    snapshot holds no storage objects: its claims are not checked at all)."""
    if not storage.collected:
        return None
    new: list[PersistentVolumeClaim] = []
    for raw in raw_claims:
        claim = PersistentVolumeClaim.from_dict(raw)
        if claim.key in storage.claims:
            continue  # an existing claim (bound or not) is used as it is
        spec = raw.get("spec")
        if not (isinstance(spec, Mapping) and "storageClassName" in spec):
            claim.storage_class = default_class(storage) or ""
        claim.uid = claim.uid or f"uid-pvc-{claim.key}"
        new.append(claim)
    return storage.with_claims(new) if new else None


def _provisioned_volume(
    claim: PersistentVolumeClaim, node: NodeInfo, storage: Storage
) -> PersistentVolume:
    pv = PersistentVolume.__new__(PersistentVolume)
    pv.name = f"pvc-{claim.namespace}-{claim.name}"
    zone = node.node.labels.get(LABEL_ZONE)
    pv.labels = {LABEL_ZONE: zone} if zone else {}
    pv.node_affinity = (
        NodeSelector([NodeSelectorTerm([(LABEL_ZONE, "In", [zone])], [])]) if zone else None
    )
    sc = storage.classes.get(claim.storage_class)
    pv.csi_driver = sc.provisioner if sc is not None else ""
    pv.csi_handle = pv.name
    pv.in_tree = None
    pv.access_modes = claim.access_modes
    pv.capacity = claim.request or 0
    pv.claim_ref = (claim.namespace, claim.name, claim.uid)
    pv.deleting = False
    pv.phase = "Bound"
    pv.storage_class = claim.storage_class
    pv.volume_mode = claim.volume_mode
    return pv


def bind_claims(storage: Storage, pod: Pod, node: NodeInfo) -> tuple[Storage | None, list[str]]:
    """The storage once the pod's unbound WaitForFirstConsumer claims are bound on the
    node (None: nothing to bind), and the claims bound."""
    claims: list[PersistentVolumeClaim] = []
    volumes: list[PersistentVolume] = []
    chosen: set[str] = set()
    for v in pod.volumes:
        if v.claim is None:
            continue
        claim = storage.claim(pod.namespace, v.claim)
        if (
            claim is None
            or claim.bound
            or claim.volume_name
            or not is_delay_binding(storage, claim)
        ):
            continue
        pv = find_matching_volume(
            claim, storage.volumes_by_class.get(claim.storage_class, ()), node.node, chosen
        )
        if pv is not None:
            chosen.add(pv.name)
            pv = copy.copy(pv)
            pv.claim_ref = (claim.namespace, claim.name, claim.uid)
            pv.phase = "Bound"
        else:
            pv = _provisioned_volume(claim, node, storage)
        bound = copy.copy(claim)
        bound.volume_name = pv.name
        bound.bind_completed = True
        bound.phase = "Bound"
        claims.append(bound)
        volumes.append(pv)
    if not claims:
        return None, []
    view = storage.with_claims(claims)
    view.volumes = dict(storage.volumes)
    view.volumes_by_class = {k: list(v) for k, v in storage.volumes_by_class.items()}
    for pv in volumes:
        old = view.volumes.get(pv.name)
        view.volumes[pv.name] = pv
        same_class = view.volumes_by_class.setdefault(pv.storage_class, [])
        if old is not None and old in same_class:
            same_class[same_class.index(old)] = pv
        else:
            same_class.append(pv)
    return view, [c.key for c in claims]
