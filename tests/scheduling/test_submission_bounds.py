"""What a what-if may submit: one size limit and the API server's value rules, checked
before anything is stored, by the API, the form and the command line alike."""

from __future__ import annotations

import io
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import CommandError, call_command
from django.db import connection
from rest_framework.test import APIClient

from clusters.constants import LAST_APPLIED_ANNOTATION
from clusters.demo import demo_cat3_pod
from operations.input_limits import TOTAL_ANNOTATION_SIZE_LIMIT_B
from preemptlab import cli
from scheduling import services
from scheduling.models import Analysis
from tests.clusters.builders import make_deployment, make_priority_class

pytestmark = pytest.mark.django_db

TOO_LONG = "metadata.annotations: Too long: must have at most 262144 bytes"
SECRET = "hunter2-in-the-template"


def _analyses(snapshot: Any) -> str:
    return f"/api/snapshots/{snapshot.pk}/analyses/"


def _annotated(pod: dict[str, Any], total: int) -> dict[str, Any]:
    """``pod`` with one annotation making its annotations ``total`` bytes (key + value)."""
    pod = json.loads(json.dumps(pod))
    pod["metadata"]["annotations"] = {"note": "x" * (total - len("note"))}
    return pod


def _refused(response: Any, field: str, *words: str) -> str:
    body = response.content.decode()
    assert response.status_code == 400, body[:2000]
    message = " ".join(response.json()[field])
    for word in words:
        assert word in message, (word, message[:2000])
    assert not Analysis.objects.exists()
    return message


def _class_refused(api: APIClient, snapshot: Any, pc: dict[str, Any], words: str) -> None:
    """A pod with the what-if class ``pc``, refused under priority_classes."""
    body = {"pod": demo_cat3_pod(), "priority_classes": [pc]}
    _refused(api.post(_analyses(snapshot), body, format="json"), "priority_classes", words)


# --- the size limit ---------------------------------------------------------------


def test_annotations_of_exactly_256_kib_are_accepted_as_the_api_server_accepts_them(
    api: APIClient, demo_snapshot: Any
) -> None:
    pod = _annotated(demo_cat3_pod(), TOTAL_ANNOTATION_SIZE_LIMIT_B)
    r = api.post(_analyses(demo_snapshot), {"pod": pod}, format="json")
    assert r.status_code == 202, r.content[:2000]


def test_annotations_one_byte_over_256_kib_are_refused_naming_the_pod(
    api: APIClient, demo_snapshot: Any
) -> None:
    pod = _annotated(demo_cat3_pod(), TOTAL_ANNOTATION_SIZE_LIMIT_B + 1)
    name = pod["metadata"]["name"]
    _refused(api.post(_analyses(demo_snapshot), {"pod": pod}, format="json"), "pod", TOO_LONG, name)


def test_a_pod_template_annotation_over_256_kib_is_refused_naming_the_workload(
    api: APIClient, demo_snapshot: Any
) -> None:
    deployment = make_deployment("orange", demo_cat3_pod()["spec"], replicas=2)
    deployment["spec"]["template"]["metadata"]["annotations"] = {"note": "x" * 300_000}
    _refused(
        api.post(_analyses(demo_snapshot), {"objects": [deployment]}, format="json"),
        "objects",
        "Deployment default/orange: spec.template." + TOO_LONG,
    )


def test_a_template_annotation_copied_into_every_replica_is_held_to_the_workload_limit(
    api: APIClient, demo_snapshot: Any
) -> None:
    # 200 KB of annotations, within the API server's limit, in each of 1,000 replicas:
    # 200 MB once expanded, from a request of 200 KB.
    deployment = make_deployment("orange", demo_cat3_pod()["spec"], replicas=1000)
    deployment["spec"]["template"]["metadata"]["annotations"] = {"note": "x" * 200_000}
    before = _database_size()
    _refused(
        api.post(_analyses(demo_snapshot), {"objects": [deployment]}, format="json"),
        "objects",
        "The workload's 1,000 pods would be stored in more than 16,777,216 bytes",
        "PREEMPTLAB_WORKLOAD_MAX_BYTES",
    )
    assert _database_size() == before


def test_a_class_with_annotations_over_256_kib_is_refused(
    api: APIClient, demo_snapshot: Any
) -> None:
    pc = make_priority_class("cat-9", 9)
    pc["metadata"]["annotations"] = {"note": "x" * 300_000}
    _class_refused(api, demo_snapshot, pc, "PriorityClass cat-9: " + TOO_LONG)


def test_a_body_a_few_mb_over_the_limit_is_refused_naming_the_limit(
    api: APIClient, demo_snapshot: Any
) -> None:
    pod = _annotated(demo_cat3_pod(), 3 * 1024 * 1024)
    _refused(
        api.post(_analyses(demo_snapshot), {"pod": pod}, format="json"),
        "non_field_errors",
        "The request body is",
        "at most 1,114,112 are accepted",
        "PREEMPTLAB_SUBMISSION_MAX_BYTES",
    )


def _database_size() -> int:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT pg_database_size(current_database())")
        else:
            cursor.execute("SELECT page_count * page_size FROM pragma_page_count, pragma_page_size")
        return int(cursor.fetchone()[0])


def test_a_100_mb_body_is_refused_unread_and_nothing_is_stored(
    api: APIClient, demo_snapshot: Any
) -> None:
    # The reviewer's 100 MB annotation, sent as a raw JSON body through the test client.
    body = b'{"pod": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "big", '
    body += b'"annotations": {"note": "' + b"x" * (100 * 1024 * 1024) + b'"}}}}'
    before = _database_size()
    tracemalloc.start()
    try:
        r = api.post(_analyses(demo_snapshot), body, content_type="application/json")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert r.status_code == 400, r.content[:2000]
    assert "PREEMPTLAB_SUBMISSION_MAX_BYTES" in r.json()["non_field_errors"][0]
    # The test client copies the body once (its fake socket); reading it, let alone
    # decoding it, would add at least as much again.
    assert peak < len(body) * 1.3, f"{peak:,} bytes allocated for a {len(body):,}-byte body"
    assert not Analysis.objects.exists()
    assert _database_size() == before


def _manifest_of(total: int, *, objects: int) -> str:
    """``objects`` pods of ``total`` bytes of annotations each, as JSON documents."""
    pod = _annotated(demo_cat3_pod(), total)
    docs = [{**pod, "metadata": {**pod["metadata"], "name": f"web-{i}"}} for i in range(objects)]
    return "\n---\n".join(json.dumps(d) for d in docs)


@pytest.mark.parametrize(
    ("manifest", "words"),
    [
        # Five objects within 256 KiB each, over 1 MiB together: the form says so.
        (_manifest_of(215_000, objects=5), "The submission is 1,0"),
        # 5 MiB: refused by the body's declared length before the form reads it.
        (_manifest_of(5 * 1024 * 1024, objects=1), "The request body is 5,"),
    ],
    ids=["just over", "far over"],
)
def test_the_form_shows_a_manifest_over_the_limit(
    owner_client: Any, demo_snapshot: Any, manifest: str, words: str
) -> None:
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/", {"mode": "manifest", "manifest": manifest}
    )
    page = r.content.decode()
    assert r.status_code == 400
    assert words in page and "PREEMPTLAB_SUBMISSION_MAX_BYTES" in page, page[-3000:]
    assert not Analysis.objects.exists()


def test_the_snapshot_upload_still_takes_a_body_over_the_what_if_limit(api: APIClient) -> None:
    pods = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"web-{i}", "namespace": "shop", "labels": {"pad": "x" * 60}},
            "spec": {"nodeName": "n", "containers": [{"name": "main", "image": "x" * 200}]},
        }
        for i in range(5000)
    ]
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n"},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }
    body = {"name": "big", "objects": [node, *pods]}
    assert len(json.dumps(body)) > 2 * 1024 * 1024
    r = api.post("/api/snapshots/", body, format="json")
    assert r.status_code in (201, 202), r.content[:2000]


def _pod_files(tmp_path: Path, pod: dict[str, Any]) -> tuple[str, str]:
    vector = json.loads(
        (Path(__file__).parents[1] / "conformance" / "vectors")
        .joinpath("0001-handwritten-a-single-node-10cpu.json")
        .read_text()
    )
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps(vector["snapshot"]))
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(pod))
    return str(snap), str(path)


def test_the_whatif_command_refuses_annotations_over_256_kib(tmp_path: Path) -> None:
    snap, pod = _pod_files(tmp_path, _annotated(demo_cat3_pod(), 300_000))
    with pytest.raises(CommandError, match=f"Pod default/orange-0: {TOO_LONG}") as e:
        call_command("whatif", snap, pod)
    assert e.value.returncode == cli.BAD_INPUT


def test_the_installed_cli_refuses_a_file_over_the_limit_and_exits_non_zero(
    tmp_path: Path, capsys: Any
) -> None:
    snap, pod = _pod_files(tmp_path, _annotated(demo_cat3_pod(), 2 * 1024 * 1024))
    assert cli.main(["whatif", snap, "-f", pod]) == cli.BAD_INPUT
    err = capsys.readouterr().err
    assert "pod.yaml is" in err and "PREEMPTLAB_SUBMISSION_MAX_BYTES" in err


def test_the_installed_cli_refuses_a_manifest_over_the_limit_on_standard_input(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    snap, _ = _pod_files(tmp_path, demo_cat3_pod())
    manifest = json.dumps(_annotated(demo_cat3_pod(), 2 * 1024 * 1024)).encode()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(manifest)))
    assert cli.main(["whatif", snap, "-f", "-"]) == cli.BAD_INPUT
    assert "PREEMPTLAB_SUBMISSION_MAX_BYTES" in capsys.readouterr().err


# --- the API server's value rules -----------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("globalDefault", "false", "globalDefault: Invalid value: 'false': must be a boolean"),
        ("globalDefault", 0, "globalDefault: Invalid value: 0: must be a boolean"),
        ("preemptionPolicy", "", "preemptionPolicy: Unsupported value: ''"),
        ("value", "100", "value: must be an integer"),
    ],
)
def test_a_class_field_of_the_wrong_type_is_refused_as_the_api_server_refuses_it(
    api: APIClient, demo_snapshot: Any, field: str, value: Any, words: str
) -> None:
    pc = make_priority_class("quoted", 100) | {field: value}
    _class_refused(api, demo_snapshot, pc, "PriorityClass quoted: " + words)


def test_a_template_last_applied_annotation_is_shown_nowhere(
    api: APIClient, owner_client: Any, client: Any, demo_snapshot: Any
) -> None:
    deployment = make_deployment("orange", demo_cat3_pod()["spec"], replicas=2)
    deployment["spec"]["template"]["metadata"]["annotations"] = {
        LAST_APPLIED_ANNOTATION: json.dumps({"env": [{"name": "DB", "value": SECRET}]}),
        "team": "shop",
    }
    r = api.post(_analyses(demo_snapshot), {"objects": [deployment]}, format="json")
    assert r.status_code == 202, r.content[:2000]
    analysis = Analysis.objects.get()
    assert analysis.scrubbed == {"lastAppliedConfiguration": 1}
    services.analysis_run(analysis_id=analysis.pk)
    analysis.refresh_from_db()
    assert analysis.status == "done", analysis.error

    submitted = api.get(f"/api/analyses/{analysis.pk}/").json()["submitted_pod"]
    template = submitted["objects"][0]["spec"]["template"]["metadata"]
    assert template["annotations"] == {"team": "shop"}
    page = owner_client.get(analysis.get_absolute_url()).content.decode()
    shared = client.get(services.share_link_create(analysis=analysis).get_absolute_url())
    assert LAST_APPLIED_ANNOTATION not in json.dumps(submitted)
    for shown in (json.dumps(submitted), page, shared.content.decode()):
        i = shown.find(SECRET)
        assert i < 0, shown[max(0, i - 1500) : i + 200]


# --- quantities -------------------------------------------------------------------


@pytest.mark.parametrize(
    "cpu",
    ["9" * 600, "0." + "0" * 600 + "1", "9" * 30],
    ids=["600 digits", "600 characters of 1m", "30 digits, beyond 64 bits in millicores"],
)
def test_a_capacity_size_of_600_digits_is_a_400_naming_the_field(
    api: APIClient, demo_snapshot: Any, cpu: str
) -> None:
    body = {"kind": "capacity", "size": {"cpu": cpu, "memory": "1Gi"}, "limit": 5}
    message = _refused(api.post(_analyses(demo_snapshot), body, format="json"), "size", "cpu: ")
    assert message.startswith("cpu: ")


def test_room_per_class_with_a_600_digit_cpu_shows_the_error(
    owner_client: Any, demo_snapshot: Any
) -> None:
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/room/", {"cpu": "9" * 600, "memory": "1Gi", "limit": 5}
    )
    page = r.content.decode()
    assert r.status_code == 400
    assert "cpu: a quantity of 600 characters" in page
    assert not Analysis.objects.exists()


def test_a_5001_digit_cpu_in_a_pod_is_refused_as_an_upload_refuses_it(
    api: APIClient, demo_snapshot: Any
) -> None:
    pod = demo_cat3_pod()
    pod["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "9" * 5001}}
    _refused(
        api.post(_analyses(demo_snapshot), {"pod": pod}, format="json"),
        "pod",
        "spec.containers[*].resources.requests.cpu",
        "beyond the 64-bit range",
    )


def test_a_5001_digit_cpu_in_a_workload_is_refused(api: APIClient, demo_snapshot: Any) -> None:
    spec = demo_cat3_pod()["spec"]
    spec["containers"][0]["resources"] = {"requests": {"cpu": "9" * 5001}}
    deployment = make_deployment("orange", spec, replicas=2)
    _refused(
        api.post(_analyses(demo_snapshot), {"objects": [deployment]}, format="json"),
        "objects",
        "beyond the 64-bit range",
    )
