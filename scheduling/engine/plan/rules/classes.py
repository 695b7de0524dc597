"""Rules about the PriorityClasses themselves: the default, the range, the policy, use."""

from __future__ import annotations

from collections.abc import Iterator

from ...objects import PREEMPT_NEVER
from ...priority import HIGHEST_USER_DEFINABLE_PRIORITY
from ...words import NAMES_IN_A_SENTENCE, join_names, plural
from ..apps import class_ref, namespace_ref
from ..context import AuditContext
from ..finding import Draft
from ..fixes import class_scoped_quota, limited_classes_admission, priority_class, snippet
from ..thresholds import MANY_NAMESPACES

_IMMUTABLE = (
    "A PriorityClass's value and preemptionPolicy cannot change: delete it and create it\n"
    "again. Running pods keep the priority they were admitted with until recreated."
)


def no_global_default(ctx: AuditContext) -> Iterator[Draft]:
    index = ctx.index
    if any(c.global_default for c in index.user_classes()):
        return
    unclassed = [p for p in index.live if p.priority_class_name is None]
    at_zero = sum(1 for p in unclassed if p.priority == 0)
    user = index.user_classes()
    lowest = min((c.value for c in user), default=0)
    name = "default-priority"
    while name in index.classes:
        name += "-x"
    if unclassed:
        here = (
            f"here {plural(len(unclassed), 'pod')} {'names' if len(unclassed) == 1 else 'name'} "
            f"none, {at_zero:,} of them at priority 0"
        )
    else:
        here = "every pod here names one, but a pod that does not would run at 0"
    yield Draft(
        "No PriorityClass is the globalDefault, so a pod that names no class gets priority 0: "
        + here,
        (),
        snippet(
            priority_class(
                name,
                min(0, lowest),
                global_default=True,
                description="Pods that name no class: the lowest rung.",
            ),
            comment="Pods created from now on without a priorityClassName get this class.",
        ),
    )


def global_default_not_lowest(ctx: AuditContext) -> Iterator[Draft]:
    default = ctx.index.cluster.resolver.default
    if default is None:
        return
    lower = sorted(
        (c for c in ctx.index.user_classes() if c.value < default.value), key=lambda c: c.name
    )
    if not lower:
        return
    lowest = min(c.value for c in lower)
    yield Draft(
        f"The globalDefault PriorityClass {default.name} ({default.value}) is not the lowest: "
        f"{join_names([f'{c.name} ({c.value})' for c in lower], limit=NAMES_IN_A_SENTENCE)} "
        f"{'is' if len(lower) == 1 else 'are'} below it",
        (class_ref(default.name), *(class_ref(c.name) for c in lower)),
        snippet(
            priority_class(
                default.name,
                lowest,
                global_default=True,
                preemption_policy=default.preemption_policy,
                description=default.description,
            ),
            comment=_IMMUTABLE,
        ),
    )


def class_in_reserved_range(ctx: AuditContext) -> Iterator[Draft]:
    for c in sorted(ctx.index.user_classes(), key=lambda c: c.name):
        if c.value > HIGHEST_USER_DEFINABLE_PRIORITY:
            yield Draft(
                f"PriorityClass {c.name} has value {c.value}, above the "
                f"{HIGHEST_USER_DEFINABLE_PRIORITY} that user classes may use",
                (class_ref(c.name),),
                snippet(
                    priority_class(
                        c.name,
                        HIGHEST_USER_DEFINABLE_PRIORITY,
                        global_default=c.global_default,
                        preemption_policy=c.preemption_policy,
                        description=c.description,
                    ),
                    comment=_IMMUTABLE,
                ),
            )


def never_preempting_class(ctx: AuditContext) -> Iterator[Draft]:
    for c in sorted(ctx.index.user_classes(), key=lambda c: c.name):
        if c.preemption_policy == PREEMPT_NEVER:
            yield Draft(
                f"PriorityClass {c.name} ({c.value}) has preemptionPolicy Never: its pods go "
                "ahead of lower ones in the queue but never evict a pod to make room",
                (class_ref(c.name),),
                snippet(
                    priority_class(
                        c.name,
                        c.value,
                        global_default=c.global_default,
                        description=c.description,
                    ),
                    comment="Intended for batch work that may wait. If its pods must make room,\n"
                    + _IMMUTABLE,
                ),
            )


def unused_class(ctx: AuditContext) -> Iterator[Draft]:
    # Finished pods count here (not in the ladder's room): a Job's class between runs is
    # still in use.
    named = {p.priority_class_name for p in ctx.index.cluster.pods}
    for c in sorted(ctx.index.user_classes(), key=lambda c: c.name):
        # The globalDefault serves every pod created without a class: never "unused".
        if c.name in named or c.global_default:
            continue
        yield Draft(
            f"PriorityClass {c.name} ({c.value}) is used by no pod",
            (class_ref(c.name),),
            f"# Keep it if workloads are planned for it; otherwise:\n"
            f"# kubectl delete priorityclass {c.name}\n",
        )


def high_class_without_quota(ctx: AuditContext) -> Iterator[Draft]:
    namespaces = sorted(ctx.index.namespaces)
    if len(namespaces) < MANY_NAMESPACES:
        return
    quotas = [q for q in ctx.index.cluster.quotas if q.scoped_by_priority_class]
    for c in ctx.high_classes():
        limited = {q.namespace for q in quotas if q.covers_class(c.name)}
        # The cluster's own namespaces (kube-system and the like) are the administrators'.
        open_to = [ns for ns in namespaces if ns not in limited and not ns.startswith("kube-")]
        if not open_to:
            continue
        yield Draft(
            f"PriorityClass {c.name} ({c.value}) can be used in {len(open_to):,} of the "
            f"{len(namespaces):,} namespaces, which have no ResourceQuota scoped to it: "
            f"{join_names(open_to, limit=NAMES_IN_A_SENTENCE)}",
            (class_ref(c.name), *(namespace_ref(ns) for ns in open_to)),
            snippet(
                limited_classes_admission([c.name]),
                class_scoped_quota(open_to[0], c.name),
                comment=(
                    "kube-apiserver --admission-control-config-file: pods of the class are\n"
                    "admitted only in namespaces holding a ResourceQuota scoped to it; then\n"
                    "give each namespace allowed to use it such a quota."
                ),
            ),
        )
