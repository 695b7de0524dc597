"""Remove what a snapshot has no business keeping: secrets, config data,
environment values, and the bulky bookkeeping kubectl prints.

Everything the engine and the pages need stays: labels, owner references, the
pod spec's scheduling fields (resources, affinity, tolerations, ...), status
phase/startTime/nominatedNodeName/conditions, and PDB status.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from clusters.constants import LAST_APPLIED_ANNOTATION, SCRUBBED_KINDS

# Keys of the scrub report, with how the snapshot page words each one.
SCRUB_LABELS = {
    "Secret": "Secret objects dropped",
    "ConfigMap": "ConfigMap objects dropped",
    "managedFields": "objects lost their metadata.managedFields",
    "lastAppliedConfiguration": f"{LAST_APPLIED_ANNOTATION} annotations removed",
    "envValues": "environment variable values removed",
    "envFrom": "envFrom references removed",
}

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
