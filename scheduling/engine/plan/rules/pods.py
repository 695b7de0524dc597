"""Rules about the priorities pods run at: drift, deleted classes, QoS, crowding."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator

from ...objects import Pod
from ...priority import FROM_SPEC
from ...words import NAMES_IN_A_SENTENCE, join_names, plural
from ..apps import class_ref
from ..context import AuditContext
from ..finding import Draft
from ..fixes import priority_class, recreate_command, snippet, template_patch
from ..index import is_system_priority
from ..thresholds import EQUAL_PRIORITY_BLOCK_PODS, EQUAL_PRIORITY_BLOCK_SHARE


def priority_drift(ctx: AuditContext) -> Iterator[Draft]:
    index = ctx.index
    classes = index.classes
    missing = index.missing_class_keys
    # class -> app -> the priorities its drifted pods run at
    drifted: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for pod, app in zip(index.live, index.app_refs, strict=True):
        name = pod.priority_class_name
        if name is None or pod.spec_priority is None or pod.key in missing:
            continue
        pc = classes.get(name)
        if pc is not None and pod.spec_priority != pc.value:
            drifted[name][app].append(pod.spec_priority)
    for name in sorted(drifted):
        apps = drifted[name]
        refs = sorted(apps)
        pods = sum(len(v) for v in apps.values())
        values = sorted({v for vs in apps.values() for v in vs}, reverse=True)
        pc = classes[name]
        yield Draft(
            f"{plural(pods, 'pod')} of {join_names(refs, limit=NAMES_IN_A_SENTENCE)} run at priority "
            f"{join_names([str(v) for v in values], limit=NAMES_IN_A_SENTENCE)} while PriorityClass {name} now has value "
            f"{pc.value}",
            (class_ref(name), *refs),
            "# Recreate the pods: admission gives the new ones the class's current value.\n"
            + "".join(f"# {recreate_command(app)}\n" for app in refs),
        )


def missing_class(ctx: AuditContext) -> Iterator[Draft]:
    index = ctx.index
    records = {m.pod: m for m in index.cluster.missing_class_pods}
    groups: dict[str, list[tuple[str, int, bool]]] = defaultdict(list)
    for pod, app in zip(index.live, index.app_refs, strict=True):
        m = records.get(pod.key)
        if m is not None:
            groups[m.class_name].append((app, m.priority, m.source == FROM_SPEC))
    for name in sorted(groups):
        group = groups[name]
        refs = sorted({app for app, _, _ in group})
        # Recreated at the value most of its pods run at, their replacements rank as they do.
        value, _ = Counter(p for _, p, _ in group).most_common(1)[0]
        assumed = sum(1 for _, _, kept in group if not kept)
        note = f" ({assumed:,} with no spec.priority, assumed {value})" if assumed else ""
        yield Draft(
            f"PriorityClass {name} no longer exists but {plural(len(group), 'pod')} of "
            f"{join_names(refs, limit=NAMES_IN_A_SENTENCE)} "
            f"{'names' if len(group) == 1 else 'name'} it{note}: a pod naming it is refused, "
            f"so {'it cannot be replaced' if len(group) == 1 else 'they cannot be replaced'}",
            (class_ref(name), *refs),
            snippet(
                priority_class(name, value),
                comment="Create the class again, at the value its pods run at.",
            ),
        )


def besteffort_high_priority(ctx: AuditContext) -> Iterator[Draft]:
    index = ctx.index
    apps: dict[str, list[Pod]] = defaultdict(list)
    for pod, app in zip(index.live, index.app_refs, strict=True):
        if pod.qos_class == "BestEffort" and ctx.is_high(pod):
            apps[app].append(pod)
    for app in sorted(apps):
        pods = apps[app]
        top = max(pods, key=lambda p: p.priority)
        cls = f" (PriorityClass {top.priority_class_name})" if top.priority_class_name else ""
        yield Draft(
            f"{app} runs {plural(len(pods), 'BestEffort pod')} at priority {top.priority}{cls}",
            (app,),
            snippet(
                template_patch(
                    app,
                    {
                        "containers": [
                            {
                                "name": "<each container>",
                                "resources": {
                                    "requests": {"cpu": "100m", "memory": "128Mi"},
                                    "limits": {"memory": "128Mi"},
                                },
                            }
                        ]
                    },
                ),
                comment="Give every container requests sized to what it uses.",
            ),
        )


def equal_priority_block(ctx: AuditContext) -> Iterator[Draft]:
    index = ctx.index
    counts: Counter[int] = Counter()
    names: dict[int, set[str]] = defaultdict(set)
    for pod in index.live:
        if is_system_priority(pod.priority):
            continue
        counts[pod.priority] += 1
        if pod.priority_class_name and pod.priority_class_name in index.classes:
            names[pod.priority].add(pod.priority_class_name)
    total = sum(counts.values())
    for priority, n in sorted(counts.items(), key=lambda kv: -kv[0]):
        if n < EQUAL_PRIORITY_BLOCK_PODS or n < EQUAL_PRIORITY_BLOCK_SHARE * total:
            continue
        classes = sorted(names[priority])
        via = (
            f" (PriorityClass {join_names(classes, limit=NAMES_IN_A_SENTENCE)})"
            if classes
            else " (no class)"
        )
        split = f"{classes[0]}-plus" if classes else "apps-plus"
        yield Draft(
            f"{n:,} of the {total:,} pods below the system range ({n / total:.0%}) run at "
            f"priority {priority}{via}: none of them can preempt another",
            tuple(class_ref(c) for c in classes),
            snippet(
                priority_class(
                    split,
                    priority + 1000,
                    description="The apps of the crowded tier that must win room first.",
                ),
                comment="Split the tier: move the apps that must get room first to a class above.",
            ),
        )
