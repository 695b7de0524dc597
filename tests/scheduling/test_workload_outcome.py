"""A workload's outcome speaks for the workload: all-run, some-run or none-run, in the
row, the API's answer and result, the lists' filter and ``whatif --format json``; a pod
keeps fits, preempts and unschedulable. Analyses stored before get the new word from
their stored run by a migration (and the old one back when it is reversed)."""

from __future__ import annotations

import gzip
import io
import json
import time
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from clusters import services as snapshot_services
from clusters.selectors import snapshot_objects
from clusters.services import snapshot_load_demo
from scheduling import services
from scheduling.models import Analysis
from tests.scheduling.test_workload import deployment
from tests.scheduling.test_workload_browser import _api

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "realworld"


def sized(replicas: int, cpu: str, memory: str, klass: str | None = "cat-1") -> dict[str, Any]:
    d = deployment(replicas)
    spec = d["spec"]["template"]["spec"]
    if klass is None:
        spec.pop("priorityClassName")
    else:
        spec["priorityClassName"] = klass
    spec["containers"][0]["resources"]["requests"] = {"cpu": cpu, "memory": memory}
    return d


# On the demo: cat-1 pods of 175m / 256Mi preempt nobody and 8 of 10 find room; cat-3
# pods of 1 CPU / 2Gi all run by preempting; 64 CPUs fit no node.
SOME_RUN = sized(10, "175m", "256Mi")
ALL_RUN = deployment(3)
NONE_RUN = sized(2, "64", "1Mi")


@pytest.fixture(autouse=True)
def _no_broker() -> Any:
    with mock.patch("scheduling.tasks.analysis_run_task.delay") as delay:
        yield delay


def _run(snapshot: Any, objects: list[Any]) -> Analysis:
    a = services.analysis_create_workload(snapshot=snapshot, objects=objects)
    return services.analysis_run(analysis_id=a.pk)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("objects", "running", "asked", "outcome"),
    [([SOME_RUN], 8, 10, "some-run"), ([ALL_RUN], 3, 3, "all-run"), ([NONE_RUN], 0, 2, "none-run")],
)
def test_a_workloads_outcome_counts_its_replicas_on_the_demo(
    api: APIClient, demo_snapshot: Any, objects: Any, running: int, asked: int, outcome: str
) -> None:
    a = _run(demo_snapshot, objects)
    assert a.status == "done", a.error
    assert a.run is not None and (a.run.bound_count, len(a.run.submitted)) == (running, asked)
    assert a.outcome == outcome
    assert a.summary.startswith(f"{running} of {asked} replicas run")
    body = api.get(f"/api/analyses/{a.pk}/").json()
    assert body["outcome"] == outcome
    assert body["result"]["outcome"] == outcome
    # The contract follows, as the engine wrote it.
    assert body["result"]["stop_reason"] and len(body["result"]["pods"]) == asked
    listed = api.get(f"/api/snapshots/{demo_snapshot.pk}/analyses/").json()["results"]
    assert [r["outcome"] for r in listed] == [outcome]


@pytest.mark.django_db
def test_a_pod_keeps_its_own_words(api: APIClient, demo_snapshot: Any, cat3_pod: Any) -> None:
    a = services.analysis_run(
        analysis_id=services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod).pk
    )
    assert a.outcome == "preempts"
    assert api.get(f"/api/analyses/{a.pk}/").json()["outcome"] == "preempts"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("cpu", "outcome", "running"),
    [("500m", "all-run", 10), ("1", "some-run", 7), ("4", "none-run", 0)],
)
def test_a_workloads_outcome_on_a_real_clusters_dump(
    owner: Any, cpu: str, outcome: str, running: int
) -> None:
    """ocp-aws: six nodes, no user class; replicas of class-less pods that cannot preempt."""
    data = gzip.decompress((REAL / "ocp-aws" / "snapshot.json.gz").read_bytes())
    snapshot = snapshot_services.snapshot_create(
        owner=owner,
        name="ocp-aws",
        files=[snapshot_services.UploadedFile(name="snapshot.json", data=data)],
        run_async=False,
    )
    a = _run(snapshot, [sized(10, cpu, "1Gi", klass=None)])
    assert a.status == "done", a.error
    assert a.run is not None and a.run.bound_count == running and not a.run.victims
    assert a.outcome == outcome
    assert a.result is not None and a.result["outcome"] == outcome


@pytest.mark.django_db
def test_the_lists_filter_by_a_workloads_outcome(
    owner_client: Any, api: APIClient, demo_snapshot: Any, cat3_pod: Any
) -> None:
    some, every, none = (_run(demo_snapshot, [o]) for o in (SOME_RUN, ALL_RUN, NONE_RUN))
    pod = services.analysis_run(
        analysis_id=services.analysis_create(snapshot=demo_snapshot, pod=cat3_pod).pk
    )
    url = f"/api/snapshots/{demo_snapshot.pk}/analyses/"

    def ids(query: str) -> set[int]:
        r = api.get(url + query)
        assert r.status_code == 200, r.content
        return {row["id"] for row in r.json()["results"]}

    assert ids("?outcome=some-run") == {some.pk}
    assert ids("?outcome=all-run") == {every.pk}
    assert ids("?outcome=none-run") == {none.pk}
    assert ids("?outcome=workload") == {some.pk, every.pk, none.pk}
    assert ids("?outcome=preempts") == {pod.pk}
    assert ids("?outcome=unschedulable") == set()  # no workload answers as one pod
    assert ids("") == {some.pk, every.pk, none.pk, pod.pk}
    bad = api.get(url + "?outcome=partial")
    assert bad.status_code == 400
    assert "some-run" in bad.json()["outcome"][0]

    page = owner_client.get(f"/snapshots/{demo_snapshot.pk}/analyses/?outcome=some-run")
    html = page.content.decode()
    assert '<option value="some-run" selected>A workload: some replicas run</option>' in html
    assert html.count("<tr>") - 1 == 1
    assert "8 of 10 replicas run" in html
    html = owner_client.get("/analyses/?outcome=none-run").content.decode()
    assert html.count("<tr>") - 1 == 1 and "0 of 2 replicas run" in html


@pytest.mark.django_db
def test_whatif_says_the_workloads_outcome_in_json_text_and_markdown(
    tmp_path: Path, demo_snapshot: Any
) -> None:
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps({"kind": "List", "items": snapshot_objects(snapshot=demo_snapshot)}))
    work = tmp_path / "web.json"
    work.write_text(json.dumps(SOME_RUN))
    answers = {}
    for fmt in ("json", "text", "markdown"):
        out = io.StringIO()
        call_command("whatif", str(snap), str(work), "--format", fmt, stdout=out)
        answers[fmt] = out.getvalue()
    contract = json.loads(answers["json"])
    assert contract["outcome"] == "some-run"
    assert sum(p["final"] == "bound" for p in contract["pods"]) == 8
    assert "Outcome: some-run." in answers["text"].splitlines()
    assert "Outcome: `some-run`" in answers["markdown"].splitlines()


@pytest.mark.worker
def test_a_real_worker_stores_the_workloads_outcome(
    live_server: Any, celery_worker_process: Any, owner: Any
) -> None:
    snapshot = snapshot_load_demo(owner=owner)
    token = Token.objects.create(user=owner).key

    _, accepted = _api(
        f"{live_server.url}/api/snapshots/{snapshot.pk}/analyses/", token, {"objects": [SOME_RUN]}
    )
    deadline = time.monotonic() + 60
    while True:
        _, body = _api(accepted["url"], token)
        if body["status"] in ("done", "failed") or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert body["status"] == "done", body
    assert body["outcome"] == body["result"]["outcome"] == "some-run"
    assert body["summary"].startswith("8 of 10 replicas run")
    _, listed = _api(
        f"{live_server.url}/api/snapshots/{snapshot.pk}/analyses/?outcome=some-run", token
    )
    assert [r["id"] for r in listed["results"]] == [body["id"]]


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_stored_workloads_their_word_and_takes_it_back(
    demo_snapshot: Any,
) -> None:
    """Backwards, the rows get the words the old code stored (a workload where 8 of 10
    ran said unschedulable, one where all ran by preempting said preempts); forwards on
    such rows, the workload's own words; a pod's row is left alone both ways."""
    some, every = _run(demo_snapshot, [SOME_RUN]), _run(demo_snapshot, [ALL_RUN])
    pod = Analysis.objects.create(
        snapshot=demo_snapshot, pod_key="default/p", pod={}, outcome="fits"
    )
    before, after = (
        [("scheduling", "0011_stopping_run")],
        [("scheduling", "0012_analysis_workload_outcome")],
    )

    def migrate(target: list[tuple[str, str]]) -> None:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(target)

    def words() -> dict[int, str]:
        return dict(Analysis.objects.values_list("pk", "outcome"))

    try:
        migrate(before)  # the old words, taken back from the stored runs
        assert words() == {some.pk: "unschedulable", every.pk: "preempts", pod.pk: "fits"}
        migrate(after)
        assert words() == {some.pk: "some-run", every.pk: "all-run", pod.pk: "fits"}
    finally:
        # The latest state for the next test, the merge migrations after this one included.
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
