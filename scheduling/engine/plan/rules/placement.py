"""Rules about who shares nodes with whom: grace periods, DaemonSets, pod affinity."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ...cluster import Cluster
from ...objects import PREEMPT_NEVER, Pod
from ...plugins.interpodaffinity import AffinityTerm, existing_pod_info, namespace_labels
from ...plugins.podindex import pods_by_namespace
from ...priority import HIGHEST_USER_DEFINABLE_PRIORITY
from ...words import NAMES_IN_A_SENTENCE, join_names, plural
from ..apps import selector_text
from ..context import AuditContext
from ..finding import Draft
from ..fixes import priority_class, snippet, template_patch
from ..index import is_system_priority
from ..thresholds import LONG_GRACE_SECONDS


@dataclass
class _Exposure:
    """An app's pods on nodes where a higher priority could preempt them."""

    nodes: set[str] = field(default_factory=set)
    # The lowest priority its exposed pods run at.
    priority: int = 2**31
    grace: int = 0
    above: int = -(2**31)


def long_grace_low_priority(ctx: AuditContext) -> Iterator[Draft]:
    exposed: dict[str, _Exposure] = defaultdict(_Exposure)
    app_of = ctx.index.app_by_key
    for ni in ctx.index.cluster.node_infos:
        # Higher tiers here: user-range pods that may preempt. System pods are placed first
        # (DaemonSets, control plane), not the preemptors a workload waits on.
        top = max(
            (
                p.priority
                for p in ni.pods
                if p.priority <= HIGHEST_USER_DEFINABLE_PRIORITY
                and p.preemption_policy != PREEMPT_NEVER
            ),
            default=None,
        )
        if top is None:
            continue
        for p in ni.pods:
            if p.grace_seconds > LONG_GRACE_SECONDS and p.priority < top:
                e = exposed[app_of[p.key]]
                e.nodes.add(ni.name)
                e.priority = min(e.priority, p.priority)
                e.grace = max(e.grace, p.grace_seconds)
                e.above = max(e.above, top)
    for app in sorted(exposed):
        e = exposed[app]
        yield Draft(
            f"{app} (priority {e.priority}) has terminationGracePeriodSeconds {e.grace:,} on "
            f"{plural(len(e.nodes), 'node')} shared with pods up to priority {e.above}: a "
            f"preemptor waits up to {e.grace:,} s for each of its pods to go",
            (app,),
            snippet(
                template_patch(app, {"terminationGracePeriodSeconds": 30}),
                comment=f"Shut down within the default 30 s (at most {LONG_GRACE_SECONDS} s).",
            ),
        )


def daemonset_below_neighbours(ctx: AuditContext) -> Iterator[Draft]:
    below: dict[str, set[str]] = defaultdict(set)
    nodes: dict[str, set[str]] = defaultdict(set)
    priority: dict[str, int] = {}
    above: dict[str, int] = {}
    app_of = ctx.index.app_by_key
    for ni in ctx.index.cluster.node_infos:
        daemons: list[tuple[str, Pod]] = []
        top: int | None = None
        for p in ni.pods:
            # The owner string first: the app lookup only for the few DaemonSet pods.
            owner = p.owner
            if owner is not None and owner.startswith("DaemonSet/"):
                daemons.append((app_of[p.key], p))
            elif top is None or p.priority > top:
                top = p.priority
        for app, p in daemons:
            nodes[app].add(ni.name)
            priority[app] = p.priority
            if top is not None and p.priority < top:
                below[app].add(ni.name)
                above[app] = max(above.get(app, top), top)
    for app in sorted(below):
        high = above[app]
        if is_system_priority(high):
            fix = snippet(
                template_patch(app, {"priorityClassName": "system-node-critical"}),
                comment="A node agent every node needs: the class kube-proxy runs at.",
            )
        else:
            name = "node-agents"
            fix = snippet(
                priority_class(
                    name, high + 1, description="DaemonSet pods: above every workload on a node."
                ),
                template_patch(app, {"priorityClassName": name}),
                comment="Rank the DaemonSet above the pods it shares nodes with.",
            )
        yield Draft(
            f"{app} (priority {priority[app]}) runs below pods of priority up to {high} on "
            f"{len(below[app]):,} of its {plural(len(nodes[app]), 'node')}",
            (app,),
            fix,
        )


def _raw_terms(pod: Pod) -> list[Any]:
    section = (pod.affinity or {}).get("podAffinity") or {}
    raw = section.get("requiredDuringSchedulingIgnoredDuringExecution") or []
    return raw if isinstance(raw, list) else []


def _term_key(term: AffinityTerm) -> tuple[object, ...]:
    """What decides which pods a term matches: replicas of one app share it."""
    return (
        term.namespaces,
        tuple(term.selector.requirements),
        term.selector.nothing,
        tuple(term.namespace_selector.requirements),
        term.namespace_selector.nothing,
    )


def _matching(
    term: AffinityTerm, cluster: Cluster, app_by_key: dict[str, str], enough: int
) -> tuple[int, list[str]] | None:
    """The highest priority among the bound pods the term matches, and their apps; the
    search stops at the first match of priority ``enough`` or more."""
    sel = term.selector
    if sel.nothing:
        return None
    by_namespace = pods_by_namespace(cluster)
    if term.all_namespaces():
        spaces = [
            ns
            for ns in by_namespace
            if ns in term.namespaces
            or term.namespace_selector.matches(namespace_labels(cluster, ns) or {})
        ]
    else:
        spaces = sorted(term.namespaces)
    # A single-valued In requirement is checked first, with one lookup per pod.
    anchor_key, anchor_value = next(
        ((k, next(iter(v))) for k, op, v in sel.requirements if op == "In" and len(v) == 1),
        ("", None),
    )
    rest = len(sel.requirements) > (1 if anchor_value is not None else 0)
    high: int | None = None
    keys: list[str] = []
    for ns in spaces:
        for pods in by_namespace.get(ns, {}).values():
            for q in pods:
                if anchor_value is not None and q.labels.get(anchor_key) != anchor_value:
                    continue
                if rest and not sel.matches(q.labels):
                    continue
                if high is None or q.priority > high:
                    high = q.priority
                    if high >= enough:
                        return high, [app_by_key[q.key]]
                keys.append(q.key)
    if high is None:
        return None
    return high, sorted({app_by_key[k] for k in keys})


def affinity_to_lower_priority(ctx: AuditContext) -> Iterator[Draft]:
    index = ctx.index
    cluster = index.cluster
    # One pod per app and priority stands for its replicas: they share the template's terms.
    seekers: dict[tuple[str, int], Pod] = {}
    for pod, app in zip(index.live, index.app_refs, strict=True):
        if pod.affinity is None or "podAffinity" not in pod.affinity:
            continue
        if (app, pod.priority) not in seekers and _raw_terms(pod):
            seekers[(app, pod.priority)] = pod
    if not seekers:
        return
    # Every (seeker, term) by term: replicas and apps sharing a term share its matches.
    uses: dict[tuple[object, ...], list[tuple[str, Pod, int, AffinityTerm]]] = defaultdict(list)
    for (app, _), pod in seekers.items():
        for i, term in enumerate(existing_pod_info(cluster, pod).required_affinity):
            uses[_term_key(term)].append((app, pod, i, term))
    flagged: list[tuple[str, Pod, int, AffinityTerm, tuple[int, list[str]]]] = []
    for group in uses.values():
        term = group[0][3]
        # Once a match reaches the highest seeker's priority no seeker of the term is flagged.
        hit = _matching(term, cluster, index.app_by_key, max(p.priority for _, p, _, _ in group))
        for app, pod, i, _ in group:
            if hit is not None and hit[0] < pod.priority:
                flagged.append((app, pod, i, term, hit))
    for app, pod, i, term, hit in sorted(flagged, key=lambda f: (f[0], f[1].priority, f[2])):
        raw_terms = _raw_terms(pod)
        high, targets = hit
        raw = raw_terms[i] if i < len(raw_terms) else {}
        yield Draft(
            f"{app} (priority {pod.priority}) requires pod affinity to "
            f"{selector_text(term.selector)}, matched only by pods of lower priority (up to "
            f"{high}): {join_names(targets, limit=NAMES_IN_A_SENTENCE)}",
            (app, *targets),
            snippet(
                template_patch(
                    app,
                    {
                        "affinity": {
                            "podAffinity": {
                                "preferredDuringSchedulingIgnoredDuringExecution": [
                                    {"weight": 100, "podAffinityTerm": raw}
                                ]
                            }
                        }
                    },
                ),
                comment=(
                    "Prefer the co-location instead of requiring it (and drop the required\n"
                    "term), or raise the pods it follows to this priority or above."
                ),
            ),
        )
