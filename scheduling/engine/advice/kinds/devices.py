"""fewer-devices and first-available: for a pod that waits for DRA devices (held by
other pods, which kube-scheduler v1.35 never preempts for), a claim that asks fewer
devices, or one that falls back to another DeviceClass through ``firstAvailable``.

The change is the pod's ResourceClaim (or ResourceClaimTemplate) as it would be
applied, same namespace and name: ``{"create": [manifest]}`` replaces the snapshot's.
Each is proven by running the question again on the cluster with that object; only a
change after which the pod (every replica) runs without evicting anyone is advice.
Waiting is what the answer already says: the holders and their owners are listed in
the explanation (dra/waiting.py).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ...dra.objects import ClaimSpec, DeviceRequest, ExactRequest, claim_spec_dict
from ..question import Asked, Run
from ..result import AdviceKind, CreateObjects
from ..search import KindBudget
from .common import KindAdvice, Searching, hurting_objects, pod_spec, runs_clean, step_less, try_run


@dataclass(frozen=True)
class ClaimSource:
    """A claim the pod names (unallocated), or the template its claim is made from."""

    kind: str  # "ResourceClaim" | "ResourceClaimTemplate"
    namespace: str
    name: str
    spec: ClaimSpec

    def manifest(self, spec: ClaimSpec) -> dict[str, Any]:
        body = claim_spec_dict(spec)
        return {
            "apiVersion": "resource.k8s.io/v1",
            "kind": self.kind,
            "metadata": {"name": self.name, "namespace": self.namespace},
            "spec": body if self.kind == "ResourceClaim" else {"spec": body},
        }


def claim_sources(asked: Asked, base: Run) -> Iterator[ClaimSource]:
    dra = asked.cluster.dra
    if not dra:
        return
    seen: set[tuple[str, str, str]] = set()
    for index in hurting_objects(asked, base):
        obj = asked.objects()[index]
        meta = obj.get("metadata") or {}
        namespace = str(meta.get("namespace") or "default")
        spec = pod_spec(dict(obj))
        for ref in spec.get("resourceClaims") or []:
            if not isinstance(ref, Mapping):
                continue
            if ref.get("resourceClaimName"):
                claim = dra.claims.get(f"{namespace}/{ref['resourceClaimName']}")
                if claim is None or claim.allocation is not None:
                    continue
                found = ClaimSource("ResourceClaim", namespace, claim.name, claim.spec)
            elif ref.get("resourceClaimTemplateName"):
                template = dra.templates.get(f"{namespace}/{ref['resourceClaimTemplateName']}")
                if template is None:
                    continue
                found = ClaimSource(
                    "ResourceClaimTemplate", namespace, template.name, template.spec
                )
            else:
                continue
            key = (found.kind, found.namespace, found.name)
            if key not in seen:
                seen.add(key)
                yield found


def _with_request(spec: ClaimSpec, i: int, request: DeviceRequest) -> ClaimSpec:
    requests = list(spec.requests)
    requests[i] = request
    return replace(spec, requests=tuple(requests))


def search_fewer(asked: Asked, base: Run, budget: KindBudget) -> KindAdvice:
    with Searching(AdviceKind.FEWER_DEVICES, budget) as s:
        for source in claim_sources(asked, base):
            for i, req in enumerate(source.spec.requests):
                exact = req.exactly
                if exact is None or exact.mode != "ExactCount" or exact.count < 2:
                    continue
                s.mark()
                less = step_less(None, base)
                for n in range(exact.count - 1, 0, -1):
                    smaller = replace(req, exactly=replace(exact, count=n))
                    change = CreateObjects(
                        (source.manifest(_with_request(source.spec, i, smaller)),)
                    )
                    run = try_run(asked, change, budget)
                    if runs_clean(run):
                        s.add(
                            change,
                            run,
                            less=less,
                            summary=f"ask {n} devices of class {exact.device_class} instead "
                            f"of {exact.count} ({source.kind} {source.namespace}/{source.name}, "
                            f"request {req.name})",
                        )
                        break
                    less = step_less(change, run)
    return s.found


def search_first_available(asked: Asked, base: Run, budget: KindBudget) -> KindAdvice:
    with Searching(AdviceKind.FIRST_AVAILABLE, budget) as s:
        classes = sorted(asked.cluster.dra.classes) if asked.cluster.dra else []
        for source in claim_sources(asked, base):
            for i, req in enumerate(source.spec.requests):
                exact = req.exactly
                if exact is None:
                    continue
                for other in classes:
                    if other == exact.device_class:
                        continue
                    s.mark()
                    subs = (
                        replace(exact, name=f"{req.name}/{_sub(exact.device_class)}"),
                        ExactRequest(
                            f"{req.name}/{_sub(other)}", other, exact.mode, exact.count, ()
                        ),
                    )
                    fallback = DeviceRequest(req.name, None, subs)
                    change = CreateObjects(
                        (source.manifest(_with_request(source.spec, i, fallback)),)
                    )
                    run = try_run(asked, change, budget)
                    if runs_clean(run):
                        s.add(
                            change,
                            run,
                            less=step_less(None, base),
                            summary=f"let request {req.name} of {source.kind} "
                            f"{source.namespace}/{source.name} fall back to class {other} "
                            f"(firstAvailable: {exact.device_class}, then {other})",
                        )
    return s.found


def _sub(device_class: str) -> str:
    """A sub-request name (a DNS label) for a class."""
    name = "".join(ch if ch.isalnum() else "-" for ch in device_class.lower()).strip("-")
    return name[:63] or "devices"
