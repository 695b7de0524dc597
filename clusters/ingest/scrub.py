"""Remove what a snapshot has no business keeping: secrets, config data,
environment values, and the bulky bookkeeping kubectl prints.

Everything the engine and the pages need stays: labels, owner references, the
pod spec's scheduling fields (resources, affinity, tolerations, ...), status
phase/startTime/nominatedNodeName/conditions, and PDB status.

Storage objects name Secrets (a PersistentVolume's CSI ``nodePublishSecretRef``,
an RBD ``keyring``, a StorageClass's ``csi.storage.k8s.io/provisioner-secret-name``
parameter): no scheduler reads them, so every secret-shaped key of a volume source
or of a class's parameters goes. DRA objects hold no Secret references, but their
opaque driver configuration (``config[].opaque.parameters``) is any JSON a driver
takes, licence keys and endpoints included, and no scheduler reads it: it goes too,
keeping the driver and the requests it applies to; so does the data a driver reports
on an allocated device (a claim's ``status.devices[].data``).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from clusters.constants import (
    KIND_DEVICE_CLASS,
    KIND_POD,
    KIND_PV,
    KIND_RESOURCE_CLAIM,
    KIND_RESOURCE_CLAIM_TEMPLATE,
    KIND_STORAGE_CLASS,
    KIND_VOLUME_ATTACHMENT,
    LAST_APPLIED_ANNOTATION,
    SCRUBBED_KINDS,
    STORAGE_KINDS,
)

# Keys of the scrub report, with how the snapshot page words each one.
SCRUB_LABELS = {
    "Secret": "Secret objects dropped",
    "ConfigMap": "ConfigMap objects dropped",
    "managedFields": "objects lost their metadata.managedFields",
    "lastAppliedConfiguration": f"{LAST_APPLIED_ANNOTATION} annotations removed",
    "envValues": "environment variable values removed",
    "envFrom": "envFrom references removed",
    "secretRefs": "secret references removed (volume sources, StorageClass parameters, annotations)",
    "opaqueParameters": "opaque device configurations removed (DRA config parameters)",
}

# A key naming or holding a credential: a Secret's name or namespace (secretRef,
# nodePublishSecretRef, adminSecretName, csi.storage.k8s.io/node-stage-secret-name),
# a keyring, a password, a token, a user key.
SECRET_SHAPED = re.compile(
    r"secret|password|passwd|token|keyring|credential|userkey|apikey|accesskey", re.IGNORECASE
)

_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")


def scrub_object(obj: dict[str, Any], report: Counter[str], *, pod_specs: bool = True) -> bool:
    """Scrub one object in place; False when the whole object must be dropped.

    ``pod_specs=False`` leaves the containers' env and envFrom (and any pod template)
    unexamined: for objects read without them.
    """
    kind = obj.get("kind")
    if kind in SCRUBBED_KINDS:
        report[str(kind)] += 1
        return False
    _scrub_metadata(obj.get("metadata"), report)
    spec = obj.get("spec")
    _scrub_secret_refs(obj, kind, spec, report)
    if pod_specs and isinstance(spec, dict):
        _scrub_pod_spec(spec, report)
        # Workload kinds carry a pod template (a CronJob inside its job template);
        # scrub it as the pod it stamps, metadata included, so no copy of a value
        # (an env value inside a last-applied annotation) survives anywhere.
        job = spec.get("jobTemplate")
        job_spec = job.get("spec") if isinstance(job, dict) else None
        for holder in (spec, job_spec):
            template = holder.get("template") if isinstance(holder, dict) else None
            if isinstance(template, dict):
                _scrub_metadata(template.get("metadata"), report)
                if isinstance(template.get("spec"), dict):
                    _scrub_pod_spec(template["spec"], report)
    return True


def _scrub_secret_refs(obj: dict[str, Any], kind: Any, spec: Any, report: Counter[str]) -> None:
    """Secret references of the storage kinds and pod volumes; DRA opaque configuration."""
    if kind in STORAGE_KINDS:
        # The provisioner's record of the Secret a volume is deleted with, and the like.
        meta = obj.get("metadata")
        annotations = meta.get("annotations") if isinstance(meta, dict) else None
        _count(report, "secretRefs", _drop_secret_keys(annotations, deep=False))
    if kind == KIND_STORAGE_CLASS:
        _count(report, "secretRefs", _drop_secret_keys(obj.get("parameters"), deep=False))
    elif not isinstance(spec, dict):
        return
    elif kind == KIND_PV:
        _count(report, "secretRefs", _drop_secret_keys(spec, deep=True))
    elif kind == KIND_VOLUME_ATTACHMENT:
        source = spec.get("source")
        if isinstance(source, dict):
            _count(
                report, "secretRefs", _drop_secret_keys(source.get("inlineVolumeSpec"), deep=True)
            )
    elif kind == KIND_DEVICE_CLASS:
        _count(report, "opaqueParameters", _drop_opaque(spec.get("config")))
    elif kind in (KIND_RESOURCE_CLAIM, KIND_RESOURCE_CLAIM_TEMPLATE):
        claim = spec.get("spec") if kind == KIND_RESOURCE_CLAIM_TEMPLATE else spec
        devices = claim.get("devices") if isinstance(claim, dict) else None
        if isinstance(devices, dict):
            _count(report, "opaqueParameters", _drop_opaque(devices.get("config")))
        status = obj.get("status")
        allocation = status.get("allocation") if isinstance(status, dict) else None
        allocated = allocation.get("devices") if isinstance(allocation, dict) else None
        if isinstance(allocated, dict):
            _count(report, "opaqueParameters", _drop_opaque(allocated.get("config")))
        # A driver's own report on each device (status.devices[].data): opaque as well.
        for device in status.get("devices") or () if isinstance(status, dict) else ():
            if isinstance(device, dict) and device.pop("data", None) is not None:
                report["opaqueParameters"] += 1
    if isinstance(spec, dict) and (kind == KIND_POD or "template" in spec or "jobTemplate" in spec):
        for pod_spec in _pod_specs(spec):
            _scrub_volumes(pod_spec.get("volumes"), report)


# The volume sources a snapshot keeps of a pod (clusters.ingest.reading's _Volume): what
# is removed from them is counted; the secret and projected sources, never kept (the
# fast path does not even decode them), are cleared without a count, for the file
# `preemptlab snapshot` writes.
KEPT_VOLUME_SOURCES = frozenset(
    {
        "persistentVolumeClaim",
        "ephemeral",
        "gcePersistentDisk",
        "awsElasticBlockStore",
        "azureDisk",
        "azureFile",
        "cinder",
        "vsphereVolume",
        "portworxVolume",
        "iscsi",
        "rbd",
    }
)


def _scrub_volumes(volumes: Any, report: Counter[str]) -> None:
    for volume in volumes if isinstance(volumes, list) else ():
        if not isinstance(volume, dict):
            continue
        for key in list(volume):
            if key in KEPT_VOLUME_SOURCES:
                _count(report, "secretRefs", _drop_secret_keys(volume[key], deep=True))
            elif isinstance(key, str) and SECRET_SHAPED.search(key):
                del volume[key]
            else:
                _drop_secret_keys(volume[key], deep=True)


def _count(report: Counter[str], key: str, n: int) -> None:
    if n:
        report[key] += n


def _pod_specs(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """A pod's spec, or the pod templates of a workload's (a CronJob's inside its job)."""
    found = [spec]
    job = spec.get("jobTemplate")
    for holder in (spec, job.get("spec") if isinstance(job, dict) else None):
        template = holder.get("template") if isinstance(holder, dict) else None
        if isinstance(template, dict) and isinstance(template.get("spec"), dict):
            found.append(template["spec"])
    return found


def _drop_secret_keys(value: Any, *, deep: bool) -> int:
    """Removes every secret-shaped key of ``value`` (of its nested objects too when
    ``deep``); how many."""
    removed = 0
    if isinstance(value, dict):
        for key in [k for k in value if isinstance(k, str) and SECRET_SHAPED.search(k)]:
            del value[key]
            removed += 1
        if deep:
            removed += sum(_drop_secret_keys(v, deep=True) for v in value.values())
    elif isinstance(value, list) and deep:
        removed += sum(_drop_secret_keys(v, deep=True) for v in value)
    return removed


def _drop_opaque(configs: Any) -> int:
    """Removes the parameters of each opaque driver configuration; how many."""
    removed = 0
    for config in configs if isinstance(configs, list) else ():
        opaque = config.get("opaque") if isinstance(config, dict) else None
        if isinstance(opaque, dict) and opaque.pop("parameters", None) is not None:
            removed += 1
    return removed


def _scrub_metadata(meta: Any, report: Counter[str]) -> None:
    if not isinstance(meta, dict):
        return
    if meta.pop("managedFields", None) is not None:
        report["managedFields"] += 1
    annotations = meta.get("annotations")
    if isinstance(annotations, dict) and (
        annotations.pop(LAST_APPLIED_ANNOTATION, None) is not None
    ):
        report["lastAppliedConfiguration"] += 1


def _scrub_pod_spec(spec: dict[str, Any], report: Counter[str]) -> None:
    for list_name in _CONTAINER_LISTS:
        containers = spec.get(list_name)
        if not isinstance(containers, list):
            continue
        for container in containers:
            if not isinstance(container, dict):
                continue
            if container.pop("envFrom", None) is not None:
                report["envFrom"] += 1
            env = container.get("env")
            if isinstance(env, list):
                for var in env:
                    if isinstance(var, dict):
                        removed = var.pop("value", None) is not None
                        removed = (var.pop("valueFrom", None) is not None) or removed
                        if removed:
                            report["envValues"] += 1


def scrub_report_lines(report: dict[str, int]) -> list[str]:
    """The scrub report as sentences, in a fixed order."""
    return [f"{report[key]:,} {label}" for key, label in SCRUB_LABELS.items() if report.get(key)]


# An event's message is kept to this many characters: a scheduler's message is shorter;
# a longer one is some component's dump (or a hostile one), cut.
EVENT_MESSAGE_CHARS = 2000
_EVENT_REFERENCE_KEYS = ("kind", "namespace", "name", "uid")


def scrub_event(obj: Any) -> dict[str, Any] | None:
    """The part of a core/v1 Event a connected cluster keeps (None: not an event): who it
    is about, what happened, when, and what recorded it; every other field is dropped,
    strings cut and cleared of NULs, nothing of the object's annotations or fields kept."""
    if not isinstance(obj, dict) or obj.get("kind") not in (None, "Event"):
        return None
    meta, series, source = (_mapping(obj.get(key)) for key in ("metadata", "series", "source"))
    count = obj.get("count") or series.get("count") or 1
    return {
        "type": _text(obj.get("type"), 32),
        "reason": _text(obj.get("reason"), 128),
        "message": _text(obj.get("message"), EVENT_MESSAGE_CHARS),
        "namespace": _text(meta.get("namespace"), 253),
        "involved": _reference(obj.get("involvedObject")),
        "related": _reference(obj.get("related")),
        "source": _text(obj.get("reportingComponent") or source.get("component"), 253),
        "count": count if isinstance(count, int) and not isinstance(count, bool) else 1,
        "first_at": _text(obj.get("firstTimestamp") or obj.get("eventTime"), 64),
        "last_at": _text(
            series.get("lastObservedTime")
            or obj.get("lastTimestamp")
            or obj.get("eventTime")
            or obj.get("firstTimestamp"),
            64,
        ),
    }


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _reference(ref: Any) -> dict[str, str] | None:
    if not isinstance(ref, dict):
        return None
    return {key: _text(ref.get(key), 253) for key in _EVENT_REFERENCE_KEYS}


def _text(value: Any, limit: int) -> str:
    if not isinstance(value, str):
        return ""
    return value.replace("\x00", "")[:limit]
