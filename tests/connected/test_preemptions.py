"""The preemptions read from events: kube-scheduler's own text only, once each; and
Explain, the preemptor asked on the snapshot before, matching what happened or not."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from clusters.demo import demo_cat3_pod, demo_objects
from connected.explain import compare, explain_create, verdict
from connected.history.models import ObservedPreemption
from connected.history.services import digest_snapshot
from connected.preemptions import pod_index, read_preemptions
from scheduling import services
from tests.connected.history_builders import MONDAY, TUESDAY, cluster_snapshot, preempted_event

PODS = pod_index(
    [
        {
            "kind": "Pod",
            "metadata": {"name": "web-2", "namespace": "default", "uid": "uid-default-web-2"},
            "spec": {"priorityClassName": "low", "priority": 100},
        },
        {
            "kind": "Pod",
            "metadata": {"name": "urgent-1", "namespace": "batch", "uid": "uid-batch-urgent-1"},
            "spec": {},
        },
    ]
)


def core_v1_event(**changes: Any) -> dict[str, Any]:
    """As `kubectl get events -o json` gives it."""
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "reason": "Preempted",
        "message": "Preempted by pod uid-batch-urgent-1 on node node-b",
        "involvedObject": {
            "kind": "Pod",
            "namespace": "default",
            "name": "web-2",
            "uid": "uid-default-web-2",
        },
        "related": {
            "kind": "Pod",
            "namespace": "batch",
            "name": "urgent-1",
            "uid": "uid-batch-urgent-1",
        },
        "eventTime": "2026-11-24T08:40:00.123456Z",
    }
    return event | changes


def test_the_victim_the_preemptor_the_node_and_the_class_from_either_form() -> None:
    for event in (core_v1_event(), preempted_event(), core_v1_event(related=None)):
        (p,) = read_preemptions([event], PODS).preemptions
        assert (p.victim, p.preemptor, p.node, p.victim_class, p.victim_priority) == (
            "default/web-2",
            "batch/urgent-1",
            "node-b",
            "low",
            100,
        )
        assert p.at is not None and p.at.minute == 40


def test_repeats_count_once_and_other_reasons_are_not_preemptions() -> None:
    events = [preempted_event(), core_v1_event(), {"reason": "Scheduled", "message": "x"}]
    read = read_preemptions(events, PODS)
    assert len(read.preemptions) == 1 and read.ignored == 0


@pytest.mark.parametrize(
    "changes",
    [
        {"message": "Preempted by pod <script>alert(1)</script> on node node-b"},
        {"message": "Preempted by pod uid-x on node node-b; rm -rf /"},
        {"message": "Preempted by pod uid-x on node <!channel>"},
        {"message": "Preempted by pod uid-x on node NODE_B"},
        {"message": None},
        {"involvedObject": {"kind": "Pod", "namespace": "Default", "name": "web-2"}},
        {"involvedObject": {"kind": "Node", "name": "node-b"}},
        {"involvedObject": "web-2"},
        {"message": "Preempted by pod " + "u" * 5000 + " on node n"},
    ],
)
def test_hostile_or_malformed_preempted_events_are_left_out_and_counted(changes: Any) -> None:
    read = read_preemptions([core_v1_event(**changes)], PODS)
    assert read.preemptions == () and read.ignored == 1


def test_an_event_without_a_time_takes_the_snapshots() -> None:
    event = preempted_event(first_at="yesterday", last_at=None)
    (p,) = read_preemptions([event], PODS, seen_at=TUESDAY).preemptions
    assert p.at == TUESDAY


def test_compare_says_what_differs() -> None:
    same = {"outcome": "preempts", "node": "n1", "victims": ["a/x"]}
    assert compare(same, node="n1", victims=["a/x"]).matches is True
    other = compare({**same, "node": "n2", "victims": ["a/y"]}, node="n1", victims=["a/x"])
    assert other.matches is False
    assert other.differences == (
        "the engine picks node n2, not n1",
        "it would not evict a/x",
        "it would also evict a/y",
    )
    assert any("minutes older" in w for w in other.why)
    fits = compare({"outcome": "fits", "node": "n3"}, node="n1", victims=["a/x"])
    assert fits.differences == ("the engine says the pod fits (on n3), without preempting",)


def _key(obj: dict[str, Any]) -> str:
    return f"{obj['metadata'].get('namespace', 'default')}/{obj['metadata']['name']}"


def _demo_after(victim: str) -> list[dict[str, Any]]:
    """The demo a moment later: orange runs on node-5 and its victim is gone."""
    objects = [
        o
        for o in copy.deepcopy(demo_objects()["items"])
        if not (o["kind"] == "Pod" and _key(o) == victim)
    ]
    orange = copy.deepcopy(demo_cat3_pod())
    orange["metadata"]["uid"] = "uid-orange"
    orange["spec"]["nodeName"] = "node-5"
    orange["status"] = {"phase": "Running", "startTime": "2026-11-24T08:41:00Z"}
    return [*objects, orange]


@pytest.mark.django_db
@pytest.mark.parametrize("node, agrees", [("node-5", True), ("node-1", False)])
def test_explain_matches_what_happened_or_says_what_differs(
    cluster: Any, no_broker: Any, no_first_in_line: Any, node: str, agrees: bool
) -> None:
    before = cluster_snapshot(cluster, demo_objects(), MONDAY)
    # What the engine answers on the snapshot before: the victim on node-5.
    asked = services.analysis_run(
        analysis_id=services.analysis_create(snapshot=before, pod=demo_cat3_pod()).pk
    )
    (victim,) = asked.result["victims"]
    namespace, name = victim.split("/")
    event = preempted_event(victim=name, uid="", node=node)
    event["message"] = f"Preempted by pod uid-orange on node {node}"
    event["involved"]["namespace"] = namespace
    after = cluster_snapshot(cluster, _demo_after(victim), TUESDAY, events=[event])
    digest_snapshot(after)
    row = ObservedPreemption.objects.get(cluster=cluster)
    assert (row.victim, row.preemptor, row.node) == (victim, "default/orange-0", node)
    analysis = explain_create(row)
    assert analysis.snapshot_id == before.pk
    assert explain_create(row).pk == analysis.pk  # asked once
    services.analysis_run(analysis_id=analysis.pk)
    row.refresh_from_db()
    said = verdict(row)
    assert said.matches is agrees, said
    if not agrees:
        assert said.differences == ("the engine picks node node-5, not node-1",)
