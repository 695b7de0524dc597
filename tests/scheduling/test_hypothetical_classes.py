"""A class before it exists: "What if we add cat-3 = 30000?" through the API, the pages
and manage.py whatif.

The snapshot is the demo without its PriorityClass cat-3, ingested through the real
service. A what-if carrying cat-3 = 30000 must answer as the same pod does on the full
demo, where cat-3 = 30000 is a real class: that independent run is the expected
answer. The analyses run in this process as the worker runs them (analysis_run).
"""

from __future__ import annotations

import html
import io
import json
import re
from typing import Any

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError

from clusters.demo import demo_cat3_pod, demo_objects
from scheduling import services
from scheduling.analyses.workloads import WorkloadRun
from scheduling.engine import analyze
from scheduling.models import Analysis
from tests.scheduling.conftest import make_snapshot

pytestmark = pytest.mark.django_db

CAT3 = {
    "apiVersion": "scheduling.k8s.io/v1",
    "kind": "PriorityClass",
    "metadata": {"name": "cat-3"},
    "value": 30000,
    "description": "Category 3: critical apps that may preempt cat-1 and cat-2.",
}
CAT3_RECORD = {
    "name": "cat-3",
    "value": 30000,
    "preemption_policy": "PreemptLowerPriority",
    "global_default": False,
    "replaces": None,
}


def without_cat3() -> list[dict[str, Any]]:
    return [
        o
        for o in demo_objects()["items"]
        if not (o["kind"] == "PriorityClass" and o["metadata"]["name"] == "cat-3")
    ]


@pytest.fixture
def no_cat3(owner: Any) -> Any:
    snapshot = make_snapshot(owner, without_cat3(), name="demo without cat-3")
    assert not snapshot.priority_classes.filter(name="cat-3").exists()
    return snapshot


def _full_demo_answer(pod: dict[str, Any]) -> dict[str, Any]:
    """The same pod on the full demo, where cat-3 = 30000 is a real class."""
    return analyze(demo_objects(), pod).to_dict()


def _manifest(*objects: dict[str, Any]) -> str:
    return yaml.safe_dump_all(objects, sort_keys=False)


def _answer(result: dict[str, Any]) -> tuple[Any, ...]:
    return (result["outcome"], result["node"], result["victims"], result["priority"])


def test_the_api_takes_the_class_in_the_manifest_and_answers_as_the_full_demo(
    api: Any, no_cat3: Any
) -> None:
    pod = demo_cat3_pod()
    url = f"/api/snapshots/{no_cat3.pk}/analyses/"
    # Without the class the pod is refused, as the API server would refuse it.
    r = api.post(url, {"pod": pod}, format="json")
    assert r.status_code == 400 and "no PriorityClass with name cat-3" in r.json()["pod"][0]
    r = api.post(url, {"manifest": _manifest(CAT3, pod)}, format="json")
    assert r.status_code == 202, r.content
    analysis = Analysis.objects.get(pk=r.json()["id"])
    assert analysis.priority_classes == [CAT3] and analysis.pod == pod
    services.analysis_run(analysis_id=analysis.pk)
    body = api.get(f"/api/analyses/{analysis.pk}/").json()
    expected = _full_demo_answer(pod)
    assert expected["outcome"] == "preempts"
    assert _answer(body["result"]) == _answer(expected)
    assert body["result"]["hypothetical_classes"] == [CAT3_RECORD]
    assert body["priority_classes"] == [CAT3]
    # The full demo's own answer lists none: cat-3 is a real class there.
    assert expected["hypothetical_classes"] == []


def test_a_v1_list_holding_the_class_and_the_pod(api: Any, no_cat3: Any) -> None:
    pod = demo_cat3_pod()
    listed = json.dumps({"apiVersion": "v1", "kind": "List", "items": [pod, CAT3]})
    r = api.post(f"/api/snapshots/{no_cat3.pk}/analyses/", {"manifest": listed}, format="json")
    assert r.status_code == 202, r.content
    analysis = services.analysis_run(analysis_id=r.json()["id"])
    # One Pod beside its class is still a single-pod what-if, with the full explanation.
    assert not analysis.is_workload and analysis.result is not None
    assert _answer(analysis.result) == _answer(_full_demo_answer(pod))


def test_the_api_takes_priority_classes_beside_a_pod_and_a_retry_answers_the_same(
    api: Any, no_cat3: Any, demo_snapshot: Any
) -> None:
    pod = demo_cat3_pod()
    r = api.post(
        f"/api/snapshots/{no_cat3.pk}/analyses/",
        {"pod": pod, "priority_classes": [CAT3]},
        format="json",
    )
    assert r.status_code == 202, r.content
    first = services.analysis_run(analysis_id=r.json()["id"]).result
    assert first is not None
    again = services.analysis_run(
        analysis_id=services.analysis_retry(analysis=Analysis.objects.get(pk=r.json()["id"])).pk
    ).result
    assert again == first
    # Run again on the full demo, the class replaces the real cat-3 of the same value.
    rerun = services.analysis_rerun(
        analysis=Analysis.objects.get(pk=r.json()["id"]), snapshot=demo_snapshot
    )
    result = services.analysis_run(analysis_id=rerun.pk).result
    assert result is not None and _answer(result) == _answer(first)
    assert result["hypothetical_classes"] == [{**CAT3_RECORD, "replaces": 30000}]


@pytest.mark.parametrize(
    ("classes", "where", "expected"),
    [
        (
            [{**CAT3, "value": 1_000_000_001}],
            "priority_classes",
            "PriorityClass cat-3: value: Forbidden: maximum allowed value of a user defined "
            "priority is 1000000000",
        ),
        (
            [{**CAT3, "globalDefault": True}],
            "priority_classes",
            # cat-1 is the demo's default.
            "PriorityClass cat-3: globalDefault: Forbidden: PriorityClass cat-1 (in the "
            "snapshot) is already marked as default. Only one default can exist",
        ),
        (
            [{**CAT3, "metadata": {"name": "system-node-critical"}, "value": 5}],
            "priority_classes",
            "PriorityClass system-node-critical: metadata.name: Forbidden: system-node-critical "
            "is a built-in system class (value 2000001000); it cannot be changed",
        ),
    ],
)
def test_a_class_the_api_server_would_refuse_answers_400_and_stores_nothing(
    api: Any, no_cat3: Any, classes: list[dict[str, Any]], where: str, expected: str
) -> None:
    r = api.post(
        f"/api/snapshots/{no_cat3.pk}/analyses/",
        {"pod": demo_cat3_pod(), "priority_classes": classes},
        format="json",
    )
    assert r.status_code == 400
    assert r.json() == {where: [expected]}
    # The same class in a manifest is refused under "manifest".
    r = api.post(
        f"/api/snapshots/{no_cat3.pk}/analyses/",
        {"manifest": _manifest(*classes, demo_cat3_pod())},
        format="json",
    )
    assert r.status_code == 400 and r.json() == {"manifest": [expected]}
    assert not Analysis.objects.exists()


def test_a_workload_with_its_class_among_the_objects(
    api: Any, owner_client: Any, no_cat3: Any
) -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "orange", "namespace": "default"},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "orange"}},
            "template": {
                "metadata": {"labels": {"app": "orange"}},
                "spec": {k: v for k, v in demo_cat3_pod()["spec"].items()},
            },
        },
    }
    r = api.post(
        f"/api/snapshots/{no_cat3.pk}/analyses/",
        {"objects": [CAT3, deployment]},
        format="json",
    )
    assert r.status_code == 202, r.content
    analysis = services.analysis_run(analysis_id=r.json()["id"])
    assert analysis.is_workload and analysis.result is not None
    contract = analysis.result
    assert [p["priority"] for p in contract["pods"]] == [30000, 30000]
    assert contract["hypothetical_classes"] == [CAT3_RECORD]
    # The stored objects are the workload's; the class is kept beside them.
    assert [o["kind"] for o in analysis.pod["objects"]] == ["Deployment"]
    assert [
        o["kind"] for o in yaml.safe_load_all(services.analysis_manifest(analysis=analysis))
    ] == [
        "PriorityClass",
        "Deployment",
    ]
    assert "hypothetical class cat-3 = 30000" in _page_text(owner_client, analysis)
    # One cycle explained: the run played again with the class, as the parent was.
    child = services.cycle_explanation_create(parent=analysis, cycle=1)
    child = services.analysis_run(analysis_id=child.pk)
    assert child.result is not None, child.error
    assert (child.result["pod"], child.result["priority"]) == (contract["pods"][0]["pod"], 30000)
    assert child.result["hypothetical_classes"] == [CAT3_RECORD]
    # A class refused among the objects is refused under "objects".
    r = api.post(
        f"/api/snapshots/{no_cat3.pk}/analyses/",
        {"objects": [{**CAT3, "value": "high"}, deployment]},
        format="json",
    )
    assert r.status_code == 400
    assert r.json() == {"objects": ["PriorityClass cat-3: value: must be an integer"]}


def test_an_old_run_without_the_field_reads_as_none() -> None:
    run = WorkloadRun.from_json(
        {
            "contract": {
                "pods": [],
                "cycles": [],
                "events": [],
                "deleted_victims": [],
                "nominations": [],
                "flushes": [],
                "stop_reason": "queue-empty",
                "final_queue": {"active": [], "backoff": [], "unschedulable": []},
                "pdb_report": [],
                "choice_points": [],
            },
            "objects": [],
            "victims": [],
            "nodes": [],
            "owners": [],
        }
    )
    assert run.hypothetical_classes == [] and run.contract["hypothetical_classes"] == []


def _page_text(owner_client: Any, analysis: Analysis) -> str:
    body = owner_client.get(analysis.get_absolute_url()).content.decode()
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body)))


def test_the_form_takes_a_pasted_class_and_the_page_says_so(
    owner_client: Any, no_cat3: Any, demo_snapshot: Any
) -> None:
    pod = demo_cat3_pod()
    r = owner_client.post(
        f"/snapshots/{no_cat3.pk}/analyses/new/",
        {"mode": "manifest", "manifest": _manifest(CAT3, pod), "timeline": ""},
    )
    assert r.status_code == 302, r.content.decode()[-2000:]
    analysis = services.analysis_run(analysis_id=Analysis.objects.get().pk)
    assert analysis.result is not None
    assert _answer(analysis.result) == _answer(_full_demo_answer(pod))
    text = _page_text(owner_client, analysis)
    assert "hypothetical class cat-3 = 30000" in text
    assert "replaces" not in text  # nothing of that name in this snapshot

    # A new value for a class the snapshot has: said with the value it replaces.
    cat2 = {**CAT3, "metadata": {"name": "cat-2"}, "value": 40000}
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/",
        {
            "mode": "manifest",
            "manifest": _manifest(
                cat2, {**pod, "spec": {**pod["spec"], "priorityClassName": "cat-2"}}
            ),
        },
    )
    assert r.status_code == 302
    analysis = services.analysis_run(
        analysis_id=Analysis.objects.filter(snapshot=demo_snapshot).get().pk
    )
    assert analysis.result is not None and analysis.result["priority"] == 40000
    assert "hypothetical class cat-2 = 40000, replaces cat-2 = 20000 in the snapshot" in _page_text(
        owner_client, analysis
    )


def test_the_short_form_adds_a_class(owner_client: Any, no_cat3: Any) -> None:
    url = f"/snapshots/{no_cat3.pk}/analyses/new/"
    fields = {
        "mode": "form",
        "name": "orange-0",
        "namespace": "default",
        "cpu": "1",
        "memory": "2Gi",
        "new_class_name": "cat-3",
    }
    r = owner_client.post(url, {**fields, "new_class_value": "2000000000"})
    assert r.status_code == 400
    errors = dict(
        re.findall(
            r'<ul class="errorlist" id="id_(\w+)-errors">(.*?)</ul>', r.content.decode(), re.S
        )
    )
    assert (
        "maximum allowed value of a user defined priority is 1000000000"
        in errors["new_class_value"]
    )
    r = owner_client.post(url, fields)
    assert r.status_code == 400 and "Give the value of class" in html.unescape(r.content.decode())
    r = owner_client.post(url, {**fields, "new_class_value": "30000", "new_class_never": "on"})
    assert r.status_code == 302
    analysis = Analysis.objects.get()
    assert analysis.pod["spec"]["priorityClassName"] == "cat-3"
    assert analysis.priority_classes == [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "cat-3"},
            "value": 30000,
            "preemptionPolicy": "Never",
        }
    ]
    analysis = services.analysis_run(analysis_id=analysis.pk)
    assert analysis.result is not None
    # preemptionPolicy Never on a full cluster: 30000, but it may not preempt.
    assert (analysis.result["priority"], analysis.result["outcome"]) == (30000, "unschedulable")
    assert analysis.result["eligible"] is False
    assert "hypothetical class cat-3 = 30000 (preemptionPolicy Never)" in _page_text(
        owner_client, analysis
    )


def test_whatif_takes_classes_in_the_file_and_as_options(tmp_path: Any) -> None:
    snapshot = tmp_path / "no-cat3.json"
    snapshot.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": without_cat3()}))
    pod = demo_cat3_pod()
    expected = _full_demo_answer(pod)

    def run(pod_file: Any, *options: str) -> dict[str, Any]:
        out = io.StringIO()
        call_command(
            "whatif", str(snapshot), str(pod_file), "--format", "json", *options, stdout=out
        )
        result: dict[str, Any] = json.loads(out.getvalue())
        return result

    with_class = tmp_path / "with-class.yaml"
    with_class.write_text(_manifest(CAT3, pod))
    got = run(with_class)
    assert _answer(got) == _answer(expected) and got["hypothetical_classes"] == [CAT3_RECORD]
    bare = tmp_path / "pod.yaml"
    bare.write_text(_manifest(pod))
    got = run(bare, "--priority-class", "cat-3=30000")
    assert _answer(got) == _answer(expected) and got["hypothetical_classes"] == [CAT3_RECORD]
    # Two options: cat-1 lowered to 5 leaves the running cat-1 pods at 10000.
    got = run(bare, "--priority-class", "cat-3=30000", "--priority-class", "cat-1=5")
    assert _answer(got) == _answer(expected)
    assert [c["replaces"] for c in got["hypothetical_classes"]] == [None, 10000]
    with pytest.raises(CommandError, match="write NAME=VALUE"):
        run(bare, "--priority-class", "cat-3")
    # --protect knows the what-if's class.
    out = io.StringIO()
    call_command(
        "whatif",
        str(snapshot),
        str(bare),
        "--priority-class",
        "cat-3=30000",
        "--protect",
        "cat-3",
        stdout=out,
    )
    assert "hypothetical class cat-3 = 30000" in out.getvalue()
