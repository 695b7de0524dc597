"""analyze(): one what-if, from a pod manifest to a Result."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from .cluster import Cluster, load_cluster
from .config import EngineConfig
from .dra.objects import generate_claims
from .errors import InvalidInput
from .explanation import FilterSampling, InputEffect, InputNotice, Outcome
from .framework import CycleState, Handle
from .hypothetical import with_priority_classes
from .message import fit_error_message
from .objects import PREEMPT_LOWER_PRIORITY, Pod
from .preemption.evaluator import (
    Evaluator,
    PreemptionResult,
    post_filter,
    post_filter_suffix,
)
from .profile.profile_map import (
    DEFAULT_PROFILE_REF,
    SchedulerConfigInput,
    SchedulerProfileRef,
    profile_map,
)
from .result import RejectedNode, Result
from .runtime import Framework
from .schedule import HostSelection, num_feasible_nodes_to_find, schedule_pod

# The status of a pod that was never scheduled: anything else was copied from a
# running pod (kubectl get pod -o yaml) and means nothing to a pending one.
_PENDING_STATUS_KEYS = frozenset({"phase", "qosClass", "conditions", "nominatedNodeName"})


def parse_pending_pod(cluster: Cluster, pod: Mapping[str, Any] | Pod) -> Pod:
    if isinstance(pod, Pod):
        # Already admitted (a simulation's pod at one of its cycles): a copy, unbound.
        p = copy.copy(pod)
        p.node_name = None
        return p
    if not isinstance(pod, Mapping):
        raise InvalidInput("the pod must be an object", kind="Pod")
    if pod.get("kind") not in (None, "Pod"):
        raise InvalidInput(f"expected a Pod, got {pod.get('kind')}", field="kind")
    raw_meta = pod.get("metadata")
    meta: Mapping[str, Any] = raw_meta if isinstance(raw_meta, Mapping) else {}
    try:
        spec = pod.get("spec")
        if not isinstance(spec, Mapping) or not spec.get("containers"):
            # What the API server answers (kubectl apply refuses it the same way).
            raise InvalidInput(
                "Required value: a Pod needs at least one container", field="spec.containers"
            )
        p = Pod.from_dict(pod)
        cluster.resolver.resolve(p)
    except InvalidInput as e:
        raise e.located(
            kind="Pod", namespace=str(meta.get("namespace") or "default"), name=meta.get("name")
        ) from None
    # The pending pod is being scheduled: whatever spec.nodeName said, it is not bound.
    p.node_name = None
    return p


def input_notices(pod: Mapping[str, Any]) -> list[InputNotice]:
    """The fields of a submitted pod that the answer drops or depends on: those a pod
    copied from a running one (``kubectl get pod -o yaml``) carries."""
    notices: list[InputNotice] = []
    spec = pod.get("spec")
    node_name = spec.get("nodeName") if isinstance(spec, Mapping) else None
    if node_name:
        notices.append(
            InputNotice(
                field="spec.nodeName",
                value=str(node_name),
                effect=InputEffect.IGNORED,
                why="a pod with nodeName set is bound without kube-scheduler; the answer is "
                "for the same pod without it",
            )
        )
    status = pod.get("status")
    if isinstance(status, Mapping):
        extra = sorted(str(k) for k in status if k not in _PENDING_STATUS_KEYS)
        phase = status.get("phase")
        if phase not in (None, "", "Pending"):
            extra.insert(0, "phase")
        if extra:
            shown = ", ".join(extra[:6]) + (f" and {len(extra) - 6} more" if len(extra) > 6 else "")
            notices.append(
                InputNotice(
                    field="status",
                    value=f"phase {phase}: {shown}" if phase else shown,
                    effect=InputEffect.IGNORED,
                    why="the status of a running pod; the answer is for the pod as a new "
                    "pending one",
                )
            )
        nominated = status.get("nominatedNodeName")
        if nominated:
            notices.append(
                InputNotice(
                    field="status.nominatedNodeName",
                    value=str(nominated),
                    effect=InputEffect.USED,
                    why="kube-scheduler tries the nominated node first and binds there if it "
                    "fits, without scoring; remove the field to ask where a new pod would go",
                )
            )
    return notices


def _not_responsible(
    cluster: Cluster, pending: Pod, reason: str, profile: SchedulerProfileRef
) -> Result:
    """The answer for a pod no profile of the configuration is named for: kube-scheduler
    never tries it (responsibleForPod), so it stays pending; nothing is filtered."""
    return Result(
        pod=pending.key,
        priority=pending.priority,
        priority_class=pending.priority_class_name,
        preemption_policy=pending.preemption_policy or PREEMPT_LOWER_PRIORITY,
        outcome=Outcome.UNSCHEDULABLE,
        eligible=False,
        ineligible_reason=reason,
        node=None,
        feasible_nodes=[],
        victims=[],
        pdb_violations=0,
        candidates=[],
        tied_nodes=[],
        rejected_nodes=[],
        message=reason,
        preemption=PreemptionResult(False, reason, message=reason),
        num_nodes=len(cluster.nodes),
        warnings=list(cluster.warnings),
        cluster=cluster,
        pending=pending,
        scheduler_profile=profile,
    )


def analyze(
    cluster_or_objects: Cluster | list[dict[str, Any]] | dict[str, Any],
    pod: Mapping[str, Any] | Pod,
    config: EngineConfig | None = None,
    *,
    priority_classes: Sequence[Mapping[str, Any]] = (),
    scheduler_config: SchedulerConfigInput | None = None,
    scheduler_source: str | None = None,
    scheduler_preset: str | None = None,
) -> Result:
    """``priority_classes``: PriorityClass objects the what-if carries, in effect for this
    run only (hypothetical.py); the pending pod is admitted against them.
    ``scheduler_config``: a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1,
    parsed, or loaded with its source and preset); the pod is answered by the profile
    its spec.schedulerName names (profile/)."""
    profiles = profile_map(
        scheduler_config, config, source=scheduler_source, preset=scheduler_preset
    )
    cluster = with_priority_classes(
        cluster_or_objects
        if isinstance(cluster_or_objects, Cluster)
        else load_cluster(cluster_or_objects),
        priority_classes,
    )
    pending = parse_pending_pod(cluster, pod)
    claims_made = False
    if pending.resource_claims and not isinstance(pod, Pod) and "status" not in pod:
        # A manifest submitted now (no status: not a pending pod of the cluster): the
        # resourceclaim controller makes its claims from templates before it is tried.
        made = generate_claims(cluster.dra, pending)
        if made:
            cluster = copy.copy(cluster)
            cluster.dra = cluster.dra.with_claims(
                {**cluster.dra.claims, **{c.key: c for c in made}}
            )
            claims_made = True
    profile_ref = DEFAULT_PROFILE_REF
    if profiles is not None:
        profile_ref = profiles.ref([pending.scheduler_name])
        found = profiles.config_for(pending.scheduler_name)
        if found is None:
            # No profile answered: the reference names the one the pod asked for.
            asked = SchedulerProfileRef(
                pending.scheduler_name, profile_ref.source, profile_ref.preset
            )
            reason = profiles.ignored_reason(pending.scheduler_name)
            return _not_responsible(cluster, pending, reason, asked)
        config = found
    config = config or EngineConfig()
    # A Pod object comes from the scheduling loop, which admitted it: nothing was dropped.
    notices = [] if isinstance(pod, Pod) else input_notices(pod)
    if claims_made:
        notices.append(
            InputNotice(
                field="spec.resourceClaims",
                value=", ".join(
                    r.generated or "" for r in pending.resource_claims if r.template_name
                ),
                effect=InputEffect.USED,
                why="the resourceclaim controller makes a claim from each template of a new "
                "pod before kube-scheduler tries it; the answer allocates these",
            )
        )
    fw = Framework(Handle(cluster, config))
    state = CycleState()
    sched = schedule_pod(fw, state, pending)
    diagnosis = sched.diagnosis
    n_nodes = len(cluster.nodes)
    base: dict[str, Any] = dict(
        pod=pending.key,
        priority=pending.priority,
        priority_class=pending.priority_class_name,
        preemption_policy=pending.preemption_policy or PREEMPT_LOWER_PRIORITY,
        warnings=list(cluster.warnings),
        num_nodes=n_nodes,
        pre_filter_msg=diagnosis.pre_filter_msg,
        input_notices=notices,
        hypothetical_classes=list(cluster.hypothetical_classes),
        cluster=cluster,
        pending=pending,
        scheduler_profile=profile_ref,
    )
    feasible_names = sorted(ni.name for ni in sched.feasible)
    feasible_set = set(feasible_names)
    if sched.host is not None:
        rejected = [
            RejectedNode(ni.name, diagnosis.get(ni.name), False)
            for ni in cluster.node_infos
            if ni.name not in feasible_set
        ]
        eligible = pending.preemption_policy != "Never"
        sampling = None
        if sched.host_selection != HostSelection.NOMINATED_NODE:
            # The nodes Filter looked at: all of them, or those PreFilter kept.
            narrowed = bool(diagnosis.absent_status.reasons)
            evaluated = len(feasible_names) + len(diagnosis.node_to_status) if narrowed else n_nodes
            sampling = FilterSampling(
                nodes_evaluated=evaluated,
                feasible_nodes=len(feasible_names),
                nodes_to_find=num_feasible_nodes_to_find(
                    config.percentage_of_nodes_to_score, evaluated
                ),
            )
        return Result(
            outcome=Outcome.FITS,
            eligible=eligible,
            ineligible_reason=None if eligible else "not eligible due to preemptionPolicy=Never.",
            node=sched.host,
            feasible_nodes=feasible_names,
            victims=[],
            pdb_violations=0,
            candidates=[],
            # Every node the real host selection could return: the top-scored
            # ones, or the one node taken without scoring.
            tied_nodes=list(sched.top_nodes)
            if sched.host_selection == HostSelection.SCORED
            else [sched.host],
            rejected_nodes=rejected,
            message="",
            scores=sched.scores,
            totals=sched.totals,
            top_scored_nodes=sched.top_nodes,
            host_selection=sched.host_selection,
            filter_sampling=sampling,
            **base,
        )
    pre = post_filter(
        fw, lambda: Evaluator(fw, shares=True).preempt(state, pending, diagnosis), state, pending
    )
    candidate_nodes = {c.node for c in pre.candidates}
    rejected = [
        RejectedNode(
            ni.name,
            diagnosis.get(ni.name),
            ni.name in candidate_nodes,
            pre.node_statuses.get(ni.name),
        )
        for ni in cluster.node_infos
    ]
    fit_msg_post = post_filter_suffix(fw, pre)
    message = fit_error_message(
        n_nodes,
        diagnosis.node_to_status,
        diagnosis.absent_status,
        diagnosis.pre_filter_msg,
        fit_msg_post,
    )
    chosen = pre.chosen
    return Result(
        outcome=Outcome.PREEMPTS if chosen is not None else Outcome.UNSCHEDULABLE,
        eligible=pre.eligible,
        ineligible_reason=pre.ineligible_reason,
        node=chosen.node if chosen else None,
        feasible_nodes=[],
        victims=[p.key for p in chosen.victims.pods] if chosen else [],
        pdb_violations=chosen.victims.num_pdb_violations if chosen else 0,
        candidates=pre.candidates,
        tied_nodes=pre.tied,
        rejected_nodes=rejected,
        message=message,
        preemption=pre,
        **base,
    )
