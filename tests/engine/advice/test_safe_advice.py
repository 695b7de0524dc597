"""Advice safe to apply as it is: a smaller request keeps the pod's QoS class, a class
value proposed stays within what the API server admits, no budget in an operator's
namespace, and each item changes no resource it does not need (one step more of each
resource it changes still hurts)."""

from __future__ import annotations

import copy
import re
from typing import Any

from scheduling.engine import load_cluster
from scheduling.engine.advice import (
    Achieves,
    AdviceKind,
    CreateObjects,
    ObjectPatch,
    PodQuestion,
    achieves,
    advise,
)
from scheduling.engine.objects import Pod
from scheduling.engine.priority import HIGHEST_USER_DEFINABLE_PRIORITY
from tests.engine.advice.rfc6902 import apply_patch
from tests.engine.advice.scenarios import HIGH, LOW, ask, filler, pending, two_nodes
from tests.engine.builders import make_node


def guaranteed(cpu: str = "2", memory: str = "1Gi") -> dict[str, Any]:
    pod = pending(cpu=cpu)
    pod["spec"]["containers"][0]["resources"] = {
        "requests": {"cpu": cpu, "memory": memory},
        "limits": {"cpu": cpu, "memory": memory},
    }
    return pod


def test_a_guaranteed_pods_smaller_request_keeps_requests_equal_to_limits() -> None:
    objects = two_nodes()
    pod = guaranteed()
    assert Pod.from_dict(pod).qos_class == "Guaranteed"
    advice = advise(load_cluster(objects), PodQuestion(pod))
    smaller = [i for i in advice.items if i.kind == AdviceKind.SMALLER_REQUEST]
    assert smaller
    for item in smaller:
        assert isinstance(item.change, ObjectPatch)
        patched = apply_patch(pod, item.change.to_dict()["patch"])
        resources = patched["spec"]["containers"][0]["resources"]
        assert resources["requests"] == resources["limits"], item.summary
        assert Pod.from_dict(patched).qos_class == "Guaranteed"
        assert "QoS" not in item.summary


def test_a_burstable_pod_keeps_its_limits_above_the_smaller_request() -> None:
    pod = pending(cpu="2")
    pod["spec"]["containers"][0]["resources"]["limits"] = {"cpu": "3"}
    advice = advise(load_cluster(two_nodes()), PodQuestion(pod))
    (cpu,) = [i for i in advice.items if i.kind == AdviceKind.SMALLER_REQUEST]
    patched = apply_patch(pod, cpu.change.to_dict()["patch"])  # type: ignore[union-attr]
    assert patched["spec"]["containers"][0]["resources"]["limits"] == {"cpu": "3"}


def test_no_class_value_proposed_above_what_a_user_class_may_have() -> None:
    # No class waits (no preemptionPolicy Never) and the pod is of a system class: the
    # note proposes a class, never of the pod's own value of 2,000,000,000.
    objects = [o for o in two_nodes() if o["metadata"]["name"] != "high-waiting"]
    pod = pending(cpu="2")
    pod["spec"]["priorityClassName"] = "system-cluster-critical"
    advice = advise(load_cluster(objects), PodQuestion(pod))
    proposed = [
        int(v.replace(",", ""))
        for n in advice.notes
        for v in re.findall(r"class (?:with it )?of value ([\d,]+)", n.text)
    ]
    assert proposed == [HIGHEST_USER_DEFINABLE_PRIORITY]
    for item in advice.items:
        for value in re.findall(r"\((\d[\d,]*),", item.summary):
            assert int(value.replace(",", "")) <= HIGHEST_USER_DEFINABLE_PRIORITY


def test_no_budget_proposed_in_an_operators_namespace() -> None:
    objects = copy.deepcopy(two_nodes())
    for o in objects:
        if o["kind"] == "Pod":
            o["metadata"]["namespace"] = "openshift-network-diagnostics"
    advice = advise(load_cluster(objects), PodQuestion(pending(cpu="2")))
    assert advice.baseline.victims
    created = [i for i in advice.items if isinstance(i.change, CreateObjects)]
    assert not any(
        m["metadata"]["namespace"].startswith("openshift-")
        for i in created
        for m in i.change.create  # type: ignore[union-attr]
    )
    assert any(
        n.kind == AdviceKind.PROTECT and "owned by the cluster's operators" in n.text
        for n in advice.notes
    )
    # The same cluster in a namespace of the user's own gets the budget.
    plain = advise(load_cluster(two_nodes()), PodQuestion(pending(cpu="2")))
    assert any(i.kind == AdviceKind.PROTECT for i in plain.items)


STEP = {"cpu": "10m", "memory": "16Mi"}


def _one_more(pod: dict[str, Any], resource: str) -> dict[str, Any]:
    """The pod with one step more of ``resource`` than its (patched) request."""
    out = copy.deepcopy(pod)
    res = out["spec"]["containers"][0]["resources"]
    amount = Pod.from_dict(out).requests[resource]
    more = amount + (10 if resource == "cpu" else 16 * 2**20)
    value = f"{more}m" if resource == "cpu" else str(more)
    res["requests"][resource] = value
    if resource in (res.get("limits") or {}):
        res["limits"][resource] = value
    return out


def _changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    a, b = Pod.from_dict(before).requests, Pod.from_dict(after).requests
    return [r for r in ("cpu", "memory") if b.get(r, 0) < a.get(r, 0)]


def _check_minimal(objects: list[dict[str, Any]], pod: dict[str, Any]) -> list[Any]:
    advice = advise(load_cluster(objects), PodQuestion(pod))
    smaller = [i for i in advice.items if i.kind == AdviceKind.SMALLER_REQUEST]
    for item in smaller:
        patched = apply_patch(pod, item.change.to_dict()["patch"])  # type: ignore[union-attr]
        assert ask(objects, [patched], None) == ("fits", [])
        for resource in _changed(pod, patched):
            outcome, victims = ask(objects, [_one_more(patched, resource)], None)
            assert outcome != "fits" or victims, (item.summary, resource)
    return smaller


def test_cpu_alone_is_advised_alone_when_it_suffices() -> None:
    # The memory-and-cpu item the search once listed beside "cpu alone" changed memory
    # the proof showed unneeded.
    smaller = _check_minimal(two_nodes(), pending(cpu="2"))
    assert [i.summary for i in smaller] == ["request at most 1 cpu"]


def test_both_resources_each_as_large_as_they_may_be() -> None:
    # One node with 1 cpu and 1Gi free; the pod asks 2 cpu and 2Gi: neither alone is
    # enough, both together are, each raised back as far as it goes (1 cpu, 1Gi).
    objects = [
        LOW,
        HIGH,
        make_node("node-a").capacity(cpu="4", memory="8Gi", pods="110").obj(),
        {**filler("red-1", "node-a", "3", "red")},
    ]
    objects[-1]["spec"]["containers"][0]["resources"]["requests"]["memory"] = "7Gi"
    pod = guaranteed(cpu="2", memory="2Gi")
    smaller = _check_minimal(objects, pod)
    assert [i.summary for i in smaller] == ["request at most 1 cpu and 1Gi memory"]


def test_items_are_grouped_by_what_they_achieve() -> None:
    advice = advise(load_cluster(two_nodes()), PodQuestion(pending(cpu="2")))
    groups = [a for a, _ in advice.groups()]
    assert groups == sorted(groups, key=list(Achieves).index)
    for achieved, items in advice.groups():
        assert all(achieves(i) == achieved for i in items)
    waits = [i for i in advice.items if i.kind == AdviceKind.WAIT_INSTEAD and i.outcome != "fits"]
    assert all(achieves(i) == Achieves.WAITS_INSTEAD for i in waits)
    lead, named = advice.headline()
    assert lead == "To run everything without evicting anyone"
    assert named and all(i.outcome == "fits" and not i.victims for i in named)
