"""Rules about DRA devices: a workload whose device class lower-priority pods hold."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from ...dra.objects import ClaimSpec, DraObjects
from ...objects import Pod
from ...words import NAMES_IN_A_SENTENCE, join_names, plural
from ..context import AuditContext
from ..finding import Draft


def _specs(dra: DraObjects, pod: Pod) -> list[ClaimSpec]:
    out: list[ClaimSpec] = []
    for ref in pod.resource_claims:
        name = ref.resolved
        claim = dra.claims.get(f"{pod.namespace}/{name}") if name else None
        if claim is not None:
            out.append(claim.spec)
        elif ref.template_name:
            template = dra.templates.get(f"{pod.namespace}/{ref.template_name}")
            if template is not None:
                out.append(template.spec)
    return out


def _held_by_class(dra: DraObjects, pods: dict[str, Pod]) -> dict[str, list[tuple[Pod, int]]]:
    """Per device class: the pods holding its devices, with how many each holds."""
    from ...dra.cel import CelError, selector_matches

    held = dra.allocated_devices()
    out: dict[str, dict[str, list[object]]] = defaultdict(dict)
    for device_id, claim in held.items():
        device = dra.by_id.get(device_id)
        if device is None:
            continue
        for cls in dra.classes.values():
            try:
                if not all(selector_matches(e, device) for e in cls.selectors):
                    continue
            except CelError:
                continue
            for consumer in claim.reserved_for:
                pod = pods.get(consumer.uid)
                if pod is None:
                    continue
                entry = out[cls.name].setdefault(pod.key, [pod, 0])
                entry[1] = int(str(entry[1])) + 1
    return {
        name: [(e[0], int(str(e[1]))) for e in holders.values()]  # type: ignore[misc]
        for name, holders in out.items()
    }


def device_class_held_by_lower(ctx: AuditContext) -> Iterator[Draft]:
    index = ctx.index
    dra = index.cluster.dra
    if not dra:
        return
    pods = {p.uid: p for p in index.live}
    held = _held_by_class(dra, pods)
    if not held:
        return
    # app -> (its highest priority, the classes its pods claim)
    apps: dict[str, tuple[int, set[str]]] = {}
    for pod, app in zip(index.live, index.app_refs, strict=True):
        if not pod.resource_claims:
            continue
        classes = {
            alt.device_class
            for spec in _specs(dra, pod)
            for req in spec.requests
            for alt in req.alternatives
        }
        prio, seen = apps.get(app, (pod.priority, set()))
        apps[app] = (max(prio, pod.priority), seen | classes)
    for app in sorted(apps):
        priority, classes = apps[app]
        for name in sorted(classes):
            lower = [(p, n) for p, n in held.get(name, []) if p.priority < priority]
            if not lower:
                continue
            devices = sum(n for _, n in lower)
            keys = sorted(p.key for p, _ in lower)
            yield Draft(
                f"{app} (priority {priority}) claims devices of class {name}, and "
                f"{plural(devices, 'device')} of that class are held by "
                f"{plural(len(keys), 'pod')} of lower priority "
                f"({join_names(keys, limit=NAMES_IN_A_SENTENCE)}): kube-scheduler v1.35 "
                "does not preempt for DRA devices, so a new pod of it waits until they end",
                (app, *keys),
                "# Leave devices of the class free for it, let the request fall back to another\n"
                "# class with firstAvailable, or ask fewer devices:\n"
                "# spec.devices.requests[].firstAvailable: [{deviceClassName: "
                f"{name}, ...}}, {{deviceClassName: <another class>, ...}}]\n",
            )
