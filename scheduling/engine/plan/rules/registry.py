"""The audit's rules, in the order findings are listed: each with its stable id, its
severity and the one sentence saying why it matters, citing where that comes from."""

from __future__ import annotations

from ..finding import (
    CONCEPT_PAGE,
    ERROR,
    INFO,
    PLANNING_GUIDE,
    PREEMPTION_DESIGN,
    PRIORITY_API_DESIGN,
    WARNING,
    Rule,
)
from ..thresholds import LONG_GRACE_SECONDS
from . import budgets, classes, devices, placement, pods, profiles, storage

RULES: tuple[Rule, ...] = (
    Rule(
        "no-global-default",
        WARNING,
        f"{PLANNING_GUIDE} always keeps a globalDefault class, the lowest one, because "
        f"without it a pod that names no class runs at priority 0 ({CONCEPT_PAGE}), "
        "wherever that falls in the ladder.",
        classes.no_global_default,
    ),
    Rule(
        "global-default-not-lowest",
        WARNING,
        f"{PLANNING_GUIDE} makes the default class the lowest, so that a pod nobody "
        "classified gives way first, never one a team deliberately ranked below the default.",
        classes.global_default_not_lowest,
    ),
    Rule(
        "class-in-reserved-range",
        ERROR,
        f"Values above 1,000,000,000 are reserved for critical system pods ({CONCEPT_PAGE}) "
        f"and {PLANNING_GUIDE} keeps every user class below system-cluster-critical, so "
        "nothing outranks the cluster's own components.",
        classes.class_in_reserved_range,
    ),
    Rule(
        "priority-drift",
        WARNING,
        f"A pod's priority is resolved once, at admission ({PRIORITY_API_DESIGN}), so after "
        "a class is deleted and recreated with another value its old pods and their "
        "replacements rank differently until every pod is recreated.",
        pods.priority_drift,
    ),
    Rule(
        "missing-class",
        ERROR,
        "Pods naming a deleted PriorityClass keep their priority but no new pod naming it "
        f"can be created ({CONCEPT_PAGE}), so their controllers cannot replace a pod that "
        "is lost, evicted or preempted.",
        pods.missing_class,
    ),
    Rule(
        "critical-app-without-pdb",
        WARNING,
        f"{PLANNING_GUIDE} puts a PodDisruptionBudget on the business-critical tiers, and "
        f"preemption picks nodes and victims that violate no budget first ({PREEMPTION_DESIGN}), "
        "so an unbudgeted app is the one taken among equals.",
        budgets.critical_app_without_pdb,
    ),
    Rule(
        "pdb-never-allows",
        WARNING,
        "A budget that can never allow a disruption blocks every drain and eviction, while "
        f"preemption honours budgets only on a best-effort basis ({CONCEPT_PAGE}) and "
        "violates it anyway when nothing else fits.",
        budgets.pdb_never_allows,
    ),
    Rule(
        "pdb-matches-nothing",
        WARNING,
        f"Preemption counts a budget only for the pods its selector matches ({PREEMPTION_DESIGN}), "
        "so a budget matching no pod protects nothing: most often a selector typo leaving "
        "the app it was meant for unprotected.",
        budgets.pdb_matches_nothing,
    ),
    Rule(
        "pdb-empty-selector",
        WARNING,
        "An empty selector matches every pod of the namespace for eviction (policy/v1), but "
        "kube-scheduler v1.35's preemption skips such a budget when it counts violations "
        f"(filterPodsWithPDBViolation, the PDB step of {PREEMPTION_DESIGN}).",
        budgets.pdb_empty_selector,
    ),
    Rule(
        "affinity-to-lower-priority",
        WARNING,
        "When a pending pod requires affinity to lower-priority pods, preempting them would "
        f"break the affinity, so the scheduler preempts nothing on that node ({CONCEPT_PAGE}); "
        f"{PLANNING_GUIDE} keeps affinity toward pods of equal or higher priority only.",
        placement.affinity_to_lower_priority,
    ),
    Rule(
        "long-grace-low-priority",
        WARNING,
        "A victim keeps its room until its graceful termination ends, so a preemptor waits "
        f"out every victim's terminationGracePeriodSeconds (the starvation described in "
        f"{PREEMPTION_DESIGN}; {CONCEPT_PAGE}, 'Graceful termination of preemption victims'); "
        f"more than {LONG_GRACE_SECONDS} s is flagged.",
        placement.long_grace_low_priority,
    ),
    Rule(
        "besteffort-high-priority",
        WARNING,
        "A BestEffort pod always uses more than its zero requests, so under node pressure the "
        f"kubelet evicts it before lower-priority pods within theirs ({CONCEPT_PAGE}, "
        "'Interactions between Pod priority and quality of service'), and the scheduler "
        "reserves no room for it.",
        pods.besteffort_high_priority,
    ),
    Rule(
        "daemonset-below-neighbours",
        WARNING,
        "A preempted DaemonSet pod is recreated for the same node and may only preempt pods "
        f"below it ({PREEMPTION_DESIGN}), so ranked below its neighbours it can come back to "
        "a node with no room and stay pending.",
        placement.daemonset_below_neighbours,
    ),
    Rule(
        "preemption-disabled",
        WARNING,
        "A profile without DefaultPreemption at PostFilter never evicts anything "
        "(kube-scheduler's framework runs PostFilter plugins only when a pod fits nowhere), "
        f"so PriorityClasses order the queue but no longer make room ({CONCEPT_PAGE}).",
        profiles.preemption_disabled,
    ),
    Rule(
        "pods-without-profile",
        WARNING,
        "kube-scheduler schedules only the pods whose spec.schedulerName names one of its "
        "profiles; a pod naming another waits for a scheduler of that name, forever if none "
        "runs (kubernetes.io, Configure Multiple Schedulers).",
        profiles.pods_without_profile,
    ),
    Rule(
        "device-class-held-by-lower",
        WARNING,
        "kube-scheduler v1.35 never preempts for Dynamic Resource Allocation devices (every "
        "DynamicResources rejection is UnschedulableAndUnresolvable and the devices in use "
        "are read once per cycle), so a high-priority pod whose device class lower-priority "
        "pods hold waits for them to end, unlike one asking nvidia.com/gpu, which preempts "
        f"as any resource does ({CONCEPT_PAGE}).",
        devices.device_class_held_by_lower,
    ),
    Rule(
        "equal-priority-block",
        INFO,
        f"Preemption evicts only pods of lower priority ({PREEMPTION_DESIGN}), so pods of one "
        "value never make room for each other: when most of the cluster shares a value, a "
        "pending pod of that tier waits for free room however important its app.",
        pods.equal_priority_block,
    ),
    Rule(
        "never-preempting-class",
        INFO,
        "preemptionPolicy Never puts pods ahead in the scheduling queue but never evicts "
        f"anything for them ({CONCEPT_PAGE}, 'Non-preempting PriorityClass'): right for "
        "batch work that can wait, surprising anywhere else.",
        classes.never_preempting_class,
    ),
    Rule(
        "unused-class",
        INFO,
        f"{PLANNING_GUIDE} keeps a short ladder every team can read, and a class no pod "
        "uses is either planned work or a rung someone may pick by mistake.",
        classes.unused_class,
    ),
    Rule(
        "high-class-without-quota",
        WARNING,
        "Any namespace may create pods of any class unless a ResourceQuota scoped by "
        f"PriorityClass limits it ({CONCEPT_PAGE}, 'Limit Priority Class consumption by "
        "default'), so on a shared cluster one team's high class preempts the others.",
        classes.high_class_without_quota,
    ),
    Rule(
        "rwop-held-by-lower-priority",
        WARNING,
        "A ReadWriteOncePod claim is used by one pod in the whole cluster (VolumeRestrictions "
        f"counts its users cluster-wide, {PREEMPTION_DESIGN}): a higher-priority pod needing it "
        "waits until it preempts the lower-priority holder, on the holder's node only.",
        storage.rwop_held_by_lower_priority,
    ),
    Rule(
        "stateful-zone-without-room",
        WARNING,
        "A bound volume that lives in one zone confines its pod to that zone "
        "(VolumeBinding and VolumeZone reject every other node as unresolvable, so "
        f"preemption never looks elsewhere, {PREEMPTION_DESIGN}): a replica whose zone "
        "has no other node with room for it, even by preemption, stays pending when its "
        "node is lost or drained.",
        storage.stateful_zone_without_room,
    ),
)

RULE_IDS: tuple[str, ...] = tuple(r.id for r in RULES)
