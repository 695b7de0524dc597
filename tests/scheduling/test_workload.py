"""Workload what-ifs over the API, the services, the page and the CLI.

The task itself runs in-process here (services.analysis_run, as the worker calls
it); test_workload_browser.py runs it on a real worker.
"""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import yaml
from django.core.management import call_command
from rest_framework.test import APIClient

from clusters.selectors import pod_manifest, snapshot_objects
from scheduling import services
from scheduling.engine import load_cluster, simulate
from scheduling.engine.workload import admit, expand_workload
from scheduling.models import Analysis
from tests.verdict import without_verdict

pytestmark = pytest.mark.django_db


def deployment(replicas: int = 6, **template_spec: Any) -> dict[str, Any]:
    spec = {
        "priorityClassName": "cat-3",
        "containers": [
            {
                "name": "main",
                "image": "registry.k8s.io/pause:3.10",
                "resources": {"requests": {"cpu": "1", "memory": "2Gi"}},
            }
        ],
        **template_spec,
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": spec},
        },
    }


@pytest.fixture(autouse=True)
def _no_broker() -> Any:
    with mock.patch("scheduling.tasks.analysis_run_task.delay") as delay:
        yield delay


def _expected(snapshot: Any, objects: list[Any], recreate: bool = False) -> dict[str, Any]:
    """The engine's own answer, computed here from the objects (not from the stored row)."""
    cluster = load_cluster(snapshot_objects(snapshot=snapshot))
    w = expand_workload(objects)
    admit(w, cluster.resolver)
    out = simulate(cluster, w.pods, recreate_victims=recreate).to_dict()
    return json.loads(json.dumps(out, default=lambda e: e.value))


def _post(api: APIClient, snapshot: Any, body: dict[str, Any]) -> Any:
    return api.post(f"/api/snapshots/{snapshot.pk}/analyses/", body, format="json")


def test_it_runs_a_deployment_and_the_api_carries_the_workload_contract(
    api: APIClient, demo_snapshot: Any
) -> None:
    manifest = yaml.safe_dump(deployment())
    r = _post(api, demo_snapshot, {"manifest": manifest})
    assert r.status_code == 202, r.content
    services.analysis_run(analysis_id=r.json()["id"])
    body = api.get(r.json()["url"]).json()
    assert body["status"] == "done"
    assert body["kind"] == "workload"
    expected = _expected(demo_snapshot, [deployment()])
    # The workload's word first (all 6 replicas run), then the engine's contract.
    assert without_verdict(body["result"]) == {"outcome": "all-run", **expected}
    assert body["outcome"] == "all-run"
    # Successive preemptions overrun the demo's PDBs while each cycle counted 0.
    exceeded = [p for p in body["result"]["pdb_report"] if p["exceeded"]]
    assert exceeded
    assert all(b["pdb_violations"] == 0 for p in exceeded for b in p["cycles_beyond_budget"])
    assert body["progress_cycle"] == len(expected["cycles"])


def test_objects_with_recreate_victims_add_the_cascade(api: APIClient, demo_snapshot: Any) -> None:
    r = _post(api, demo_snapshot, {"objects": [deployment(3)], "recreate_victims": True})
    assert r.status_code == 202, r.content
    a = services.analysis_run(analysis_id=r.json()["id"])
    assert a.recreate_victims
    assert a.result is not None
    assert without_verdict(a.result) == {
        "outcome": "all-run",
        **_expected(demo_snapshot, [deployment(3)], recreate=True),
    }
    assert "recreated" in a.result


def test_a_single_pod_stays_a_pod_analysis(
    api: APIClient, demo_snapshot: Any, cat3_pod: dict[str, Any]
) -> None:
    r = _post(api, demo_snapshot, {"manifest": json.dumps(cat3_pod)})
    a = Analysis.objects.get(pk=r.json()["id"])
    assert a.kind == "pod"


def _bad(objects_field: str, obj: dict[str, Any]) -> dict[str, Any]:
    if objects_field == "manifest":
        return {"manifest": yaml.safe_dump(obj)}
    return {"objects": [obj]}


BAD = {
    "zero replicas": (deployment(0), "give at least 1 replica"),
    "no containers": (
        deployment(containers=[]),
        "the pod template has no containers",
    ),
    "selector misses labels": (
        {
            **deployment(),
            "spec": {**deployment()["spec"], "selector": {"matchLabels": {"app": "x"}}},
        },
        "`selector` does not match template `labels`",
    ),
    "no workload": (
        {"kind": "Service", "metadata": {"name": "c"}},
        "holds 1 Service and no Pod or workload",
    ),
    "unknown class": (deployment(priorityClassName="cat-9"), "no PriorityClass with name cat-9"),
}


@pytest.mark.parametrize("field", ["manifest", "objects"])
@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_answers_400_under_its_field_and_stores_nothing(
    api: APIClient, demo_snapshot: Any, field: str, case: str
) -> None:
    obj, words = BAD[case]
    r = _post(api, demo_snapshot, _bad(field, obj))
    assert r.status_code == 400, r.content
    assert words in r.json()[field][0]
    assert not Analysis.objects.exists()


def test_more_replicas_than_the_limit_say_which_setting_raises_it(
    api: APIClient, demo_snapshot: Any, settings: Any
) -> None:
    settings.PREEMPTLAB_WORKLOAD_MAX_REPLICAS = 5
    r = _post(api, demo_snapshot, {"objects": [deployment(6)]})
    assert r.status_code == 400
    msg = r.json()["objects"][0]
    assert "6 pods; at most 5" in msg
    assert "PREEMPTLAB_WORKLOAD_MAX_REPLICAS" in msg
    assert not Analysis.objects.exists()


def test_the_schema_documents_both_result_shapes(api: APIClient) -> None:
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/json").content.decode()
    assert "Workload contract (kind workload)" in schema
    assert "Result contract (kind pod)" in schema
    assert "recreate_victims" in schema


def test_the_page_tells_the_run(owner_client: Any, demo_snapshot: Any) -> None:
    a = services.analysis_create_workload(snapshot=demo_snapshot, objects=[deployment()])
    a = services.analysis_run(analysis_id=a.pk)
    expected = _expected(demo_snapshot, [deployment()])
    html = owner_client.get(a.get_absolute_url()).content.decode()
    bound = sum(1 for p in expected["pods"] if p["final"] == "bound")
    assert f"{bound} of 6 replicas run" in html
    assert 'id="run-svg"' in html and 'id="nodes-svg"' in html
    for victim in expected["deleted_victims"]:
        assert f'data-victim="{victim}"' in html
    for report in expected["pdb_report"]:
        if report["exceeded"]:
            n = len(report["deleted_matching_victims"]) - report["disruptions_allowed"]
            assert f"PDB {report['pdb']} exceeded by {n}" in html
            assert "counted 0 violations" in html
    assert html.count('data-cycle="') >= 2 * len(expected["cycles"])  # picture and table


def test_a_cycle_is_explained_on_the_cluster_as_it_stood(
    owner_client: Any, demo_snapshot: Any
) -> None:
    a = services.analysis_run(
        analysis_id=services.analysis_create_workload(
            snapshot=demo_snapshot, objects=[deployment()]
        ).pk
    )
    r = owner_client.post(f"/analyses/{a.pk}/cycles/3/explain/")
    assert r.status_code == 302
    child = Analysis.objects.get(parent=a, cycle=3)
    child = services.analysis_run(analysis_id=child.pk)
    cycle = a.run.cycles[2]
    # The single-pod answer at that moment is the cycle's own decision.
    assert child.result["outcome"] == "preempts"
    assert child.result["node"] == cycle.nominated_node
    assert child.result["victims"] == cycle.victims
    # Asked again: the same analysis.
    assert owner_client.post(f"/analyses/{a.pk}/cycles/3/explain/")["Location"] == r["Location"]
    assert owner_client.post(f"/analyses/{a.pk}/cycles/999/explain/").status_code == 404


def test_whatif_prints_the_contract_and_a_short_report(tmp_path: Path, demo_snapshot: Any) -> None:
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps({"kind": "List", "items": snapshot_objects(snapshot=demo_snapshot)}))
    work = tmp_path / "web.yaml"
    work.write_text(yaml.safe_dump(deployment()))
    out = io.StringIO()
    call_command("whatif", str(snap), str(work), "--format", "json", stdout=out)
    assert without_verdict(json.loads(out.getvalue())) == {
        "outcome": "all-run",
        **_expected(demo_snapshot, [deployment()]),
    }
    out = io.StringIO()
    call_command("whatif", str(snap), str(work), "--format", "text", stdout=out)
    text = out.getvalue()
    assert text.splitlines()[0].startswith("6 of 6 replicas run; 6 pods of 2 apps evicted")
    assert text.splitlines()[1] == "Outcome: all-run."
    assert "counted 0 violations" in text


def test_a_run_that_hits_the_cycle_limit_is_done_not_failed(demo_snapshot: Any) -> None:
    a = services.analysis_create_workload(
        snapshot=demo_snapshot, objects=[deployment(20)], recreate_victims=True
    )
    real = simulate

    def limited(*args: Any, **kwargs: Any) -> Any:
        return real(*args, **{**kwargs, "cycle_limit": 5})

    with mock.patch("scheduling.services.workload.simulate", limited):
        a = services.analysis_run(analysis_id=a.pk)
    assert a.status == "done"
    assert a.result["stop_reason"] == "cycle-limit"
    assert len(a.result["cycles"]) == 5


def test_the_expanded_pods_are_stored_as_admitted(demo_snapshot: Any) -> None:
    a = services.analysis_create_workload(snapshot=demo_snapshot, objects=[deployment(2)])
    pods = a.pod["pods"]
    assert [p["spec"]["priority"] for p in pods] == [30000, 30000]
    assert a.pod["objects"] == [copy.deepcopy(deployment(2))]


def test_the_manifest_form_takes_a_workload(owner_client: Any, demo_snapshot: Any) -> None:
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/",
        {"mode": "manifest", "manifest": yaml.safe_dump(deployment(2)), "recreate_victims": "on"},
    )
    assert r.status_code == 302
    a = Analysis.objects.get()
    assert (a.kind, a.recreate_victims, len(a.pod["pods"])) == ("workload", True, 2)


@pytest.mark.parametrize("case", sorted(BAD))
def test_the_form_shows_bad_input_on_the_manifest_field(
    owner_client: Any, demo_snapshot: Any, case: str
) -> None:
    obj, words = BAD[case]
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/",
        {"mode": "manifest", "manifest": yaml.safe_dump(obj)},
    )
    assert r.status_code == 400
    errors = r.context["manifest_form"].errors["manifest"]
    assert any(words in e for e in errors)
    assert not Analysis.objects.exists()


def _blue_row(snapshot: Any) -> Any:
    return snapshot.pods.filter(owner__startswith="ReplicaSet/blue").order_by("name").first()


def test_the_pods_page_offers_to_scale_a_replica_sets_pod(
    owner_client: Any, demo_snapshot: Any
) -> None:
    row = _blue_row(demo_snapshot)
    html = owner_client.get(f"/snapshots/{demo_snapshot.pk}/pods/").content.decode()
    assert f"/snapshots/{demo_snapshot.pk}/pods/{row.pk}/scale-up/" in html


def test_scaling_a_replica_set_up_clones_its_pod_template(
    owner_client: Any, demo_snapshot: Any
) -> None:
    row = _blue_row(demo_snapshot)
    url = f"/snapshots/{demo_snapshot.pk}/pods/{row.pk}/scale-up/"
    assert owner_client.get(url).status_code == 200
    r = owner_client.post(url, {"replicas": "3"})
    assert r.status_code == 302
    a = Analysis.objects.get()
    rs = row.owner.split("/", 1)[1]
    existing = set(demo_snapshot.pods.filter(owner=row.owner).values_list("name", flat=True))
    source = pod_manifest(pod=row)
    assert len(a.pod["pods"]) == 3
    for p in a.pod["pods"]:
        assert p["metadata"]["name"].startswith(f"{rs}-")
        assert p["metadata"]["name"] not in existing
        assert p["metadata"]["labels"] == source["metadata"]["labels"]
        assert p["spec"]["containers"] == source["spec"]["containers"]
        assert p["metadata"]["ownerReferences"][0]["name"] == rs
        assert "nodeName" not in p["spec"]
    run = services.analysis_run(analysis_id=a.pk)
    assert run.status == "done"
    cluster = load_cluster(snapshot_objects(snapshot=demo_snapshot))
    expected = simulate(cluster, a.pod["pods"]).to_dict()
    assert run.result is not None
    assert without_verdict(run.result) == {
        "outcome": "none-run",  # three more of blue's cat-1 pods find no room
        **json.loads(json.dumps(expected, default=lambda e: e.value)),
    }
    assert run.run is not None and len(run.run.submitted) == 3


def test_scaling_by_zero_is_a_field_error(owner_client: Any, demo_snapshot: Any) -> None:
    row = _blue_row(demo_snapshot)
    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/pods/{row.pk}/scale-up/", {"replicas": "0"}
    )
    assert r.status_code == 400
    assert "Add at least 1 replica" in r.content.decode()
    assert not Analysis.objects.exists()


def _small(replicas: int, cpu: str) -> dict[str, Any]:
    d = deployment(replicas)
    spec = d["spec"]["template"]["spec"]
    spec["priorityClassName"] = "cat-1"
    spec["containers"][0]["resources"]["requests"] = {"cpu": cpu, "memory": "1Mi"}
    return d


def test_a_running_workload_shows_its_cycle(owner_client: Any, demo_snapshot: Any) -> None:
    a = services.analysis_create_workload(snapshot=demo_snapshot, objects=[deployment(2)])
    Analysis.objects.filter(pk=a.pk).update(status="running", progress_cycle=7)
    html = owner_client.get(a.get_absolute_url()).content.decode()
    assert '<span id="progress">cycle 7</span>' in html


def test_pods_left_pending_show_their_failed_scheduling_text(
    owner_client: Any, demo_snapshot: Any
) -> None:
    a = services.analysis_create_workload(snapshot=demo_snapshot, objects=[_small(2, "64")])
    a = services.analysis_run(analysis_id=a.pk)
    assert a.outcome == "none-run"
    html = owner_client.get(a.get_absolute_url()).content.decode()
    assert "0 of 2 replicas run" in html
    assert '<p class="outcome none-run" id="outcome">' in html
    for p in a.result["pods"]:
        assert f'data-pending="{p["pod"]}"' in html
    messages = {c["message"] for c in a.result["cycles"]}
    assert any(f"<q>{m}</q>" in html for m in messages)


def test_long_lists_are_paginated(owner_client: Any, demo_snapshot: Any) -> None:
    a = services.analysis_create_workload(snapshot=demo_snapshot, objects=[_small(60, "10m")])
    a = services.analysis_run(analysis_id=a.pk)
    assert len(a.result["cycles"]) == 60
    first = owner_client.get(a.get_absolute_url()).content.decode()
    assert first.count('<tr data-pod="') == 50
    second = owner_client.get(a.get_absolute_url() + "?replicas=2&cycles=2").content.decode()
    assert second.count('<tr data-pod="') == 10
    assert 'data-cycle="60"' in second


def test_a_shared_workload_shows_the_run_without_the_owner_actions(
    client: Any, demo_snapshot: Any
) -> None:
    a = services.analysis_run(
        analysis_id=services.analysis_create_workload(
            snapshot=demo_snapshot, objects=[deployment()]
        ).pk
    )
    link = services.share_link_create(analysis=a)
    html = client.get(link.get_absolute_url()).content.decode()
    assert "6 of 6 replicas run" in html
    assert 'id="run-svg"' in html
    assert "Explain this cycle" not in html


def test_whatif_runs_a_workload_on_a_stored_snapshot(tmp_path: Path, demo_snapshot: Any) -> None:
    work = tmp_path / "web.yaml"
    work.write_text(yaml.safe_dump(deployment(3)))
    out = io.StringIO()
    call_command(
        "whatif",
        "--snapshot",
        str(demo_snapshot.pk),
        str(work),
        "--recreate-victims",
        "--format",
        "json",
        stdout=out,
    )
    assert without_verdict(json.loads(out.getvalue())) == {
        "outcome": "all-run",
        **_expected(demo_snapshot, [deployment(3)], recreate=True),
    }


def test_whatif_refuses_a_bad_workload_with_the_bad_input_status(
    tmp_path: Path, demo_snapshot: Any
) -> None:
    from django.core.management.base import CommandError

    from scheduling.reports import gates

    work = tmp_path / "web.yaml"
    work.write_text(yaml.safe_dump(deployment(0)))
    with pytest.raises(CommandError) as e:
        call_command("whatif", "--snapshot", str(demo_snapshot.pk), str(work))
    assert e.value.returncode == gates.BAD_INPUT
    assert "at least 1 replica" in str(e.value)


def test_the_analyses_list_counts_a_workloads_victims(
    owner_client: Any, demo_snapshot: Any
) -> None:
    a = services.analysis_run(
        analysis_id=services.analysis_create_workload(
            snapshot=demo_snapshot, objects=[deployment(2)]
        ).pk
    )
    victims = a.result["deleted_victims"]
    html = owner_client.get(f"/snapshots/{demo_snapshot.pk}/analyses/").content.decode()
    assert f'title="{", ".join(victims)}">{len(victims)}</td>' in html


def test_a_running_simulation_writes_the_cycle_it_reached(demo_snapshot: Any) -> None:
    a = services.analysis_create_workload(snapshot=demo_snapshot, objects=[deployment()])
    seen: list[tuple[str, int]] = []

    def watched(*args: Any, on_cycle: Any = None, **kwargs: Any) -> Any:
        def cycle(n: int) -> None:
            on_cycle(n)
            row = Analysis.objects.get(pk=a.pk)
            seen.append((row.status, row.progress_cycle))

        return simulate(*args, on_cycle=cycle, **kwargs)

    with mock.patch("scheduling.services.workload.simulate", watched):
        services.analysis_run(analysis_id=a.pk)
    # The first cycle is written at once (later ones at most every half second).
    assert seen[0] == ("running", 1)
    assert all(status == "running" for status, _ in seen)
    assert Analysis.objects.get(pk=a.pk).progress_cycle == len(seen)


@pytest.mark.parametrize(
    ("flags", "reason"),
    [
        (
            ["--fail-on-pdb-violation"],
            "--fail-on-pdb-violation: Deployment default/web (6 replicas) would take "
            "PDB default/purple-pdb 2 beyond its budget of 1, "
            "PDB default/blue-pdb 2 beyond its budget of 1",
        ),
        (
            ["--protect", "cat-1"],
            "--protect cat-1: Deployment default/web (6 replicas) would "
            "preempt 6 pods of protected class cat-1",
        ),
        (["--fail-on-preempt"], "would preempt 6 pods: default/"),
        (["--fail-on-victim-priority-above", "20000"], None),
        (["--protect", "cat-2"], None),
    ],
)
def test_whatif_gates_judge_the_whole_run(
    tmp_path: Path, demo_snapshot: Any, flags: list[str], reason: str | None
) -> None:
    from django.core.management.base import CommandError

    from scheduling.reports import gates

    work = tmp_path / "web.yaml"
    work.write_text(yaml.safe_dump(deployment()))
    args = ["whatif", "--snapshot", str(demo_snapshot.pk), str(work), *flags]
    if reason is None:
        call_command(*args, stdout=io.StringIO())
        return
    with pytest.raises(CommandError) as e:
        call_command(*args, stdout=io.StringIO())
    assert e.value.returncode == gates.GATE_FAILED
    assert reason in str(e.value)


def test_whatif_writes_a_workload_as_a_pull_request_comment(
    tmp_path: Path, demo_snapshot: Any
) -> None:
    from django.core.management.base import CommandError

    work = tmp_path / "web.yaml"
    work.write_text(yaml.safe_dump(deployment()))
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command(
            "whatif",
            "--snapshot",
            str(demo_snapshot.pk),
            str(work),
            "--format",
            "markdown",
            "--fail-on-pdb-violation",
            stdout=out,
        )
    md = out.getvalue()
    expected = _expected(demo_snapshot, [deployment()])
    assert md.startswith("### preemptlab: Deployment `default/web` (6 replicas) on snapshot")
    assert "**6 of 6 replicas run; 6 pods of 2 apps evicted;" in md
    assert "- :x: --fail-on-pdb-violation:" in md
    assert f"<summary>{len(expected['cycles'])} scheduling cycles</summary>" in md
    for victim in expected["deleted_victims"]:
        assert victim in md


def test_the_markdown_of_a_cascade_has_the_owners_table(tmp_path: Path, demo_snapshot: Any) -> None:
    """The page and --format text say what each owner had running before and at the
    end; the pull-request comment left it out, though on a real cluster it is the key
    fact (an ingress at 0 of 2 running)."""
    work = tmp_path / "web.yaml"
    work.write_text(yaml.safe_dump(deployment(20)))
    args = ["whatif", "--snapshot", str(demo_snapshot.pk), str(work), "--recreate-victims"]
    text, md = io.StringIO(), io.StringIO()
    call_command(*args, stdout=text)
    call_command(*args, "--format", "markdown", stdout=md)
    cascade = [
        line.strip() for line in text.getvalue().splitlines() if "->" in line and "/" in line
    ]
    assert cascade  # the text report's owners, "ns/owner: before -> after"
    assert "#### The cascade: running before and at the end" in md.getvalue()
    for line in cascade:
        owner, counts = line.rsplit(": ", 1)
        before, after = (int(n) for n in counts.split(" -> "))
        assert f"| `{owner}` | {before} | {after} |" in md.getvalue()


def test_a_workload_is_summed_up_as_a_workload_in_the_list_and_the_api(
    owner_client: Any, api: APIClient, demo_snapshot: Any
) -> None:
    """Not as one pod's outcome ("Unschedulable", class "—") when most replicas ran and
    pods were evicted; a run with the cascade does not look like one without; and
    "Explain this cycle" does not add a row of its own."""
    plain = services.analysis_run(
        analysis_id=services.analysis_create_workload(
            snapshot=demo_snapshot, objects=[deployment(20)]
        ).pk
    )
    cascade = services.analysis_run(
        analysis_id=services.analysis_create_workload(
            snapshot=demo_snapshot, objects=[deployment(20)], recreate_victims=True
        ).pk
    )
    run = plain.run
    assert run is not None and 0 < run.bound_count < 20 and run.victims
    services.cycle_explanation_create(parent=plain, cycle=1)

    html = owner_client.get(f"/snapshots/{demo_snapshot.pk}/analyses/").content.decode()
    assert html.count("<tr>") - 1 == 2  # the two runs; the cycle's explanation is no row
    words = f"{run.bound_count} of 20 replicas run; {len(run.victims)} pods"
    assert words in html
    assert "victims recreated (the cascade)" in html
    assert 'badge outcome-unschedulable">Unschedulable' not in html
    assert '<td class="name">cat-3</td>' in html  # the workload's class, not "—"

    listed = api.get(f"/api/snapshots/{demo_snapshot.pk}/analyses/").json()["results"]
    assert {a["id"] for a in listed} == {plain.pk, cascade.pk}
    mine = next(a for a in listed if a["id"] == plain.pk)
    assert mine["summary"].startswith(words)


def test_the_cascade_is_said_in_the_headline_not_only_far_below(
    owner_client: Any, demo_snapshot: Any
) -> None:
    cascade = services.analysis_run(
        analysis_id=services.analysis_create_workload(
            snapshot=demo_snapshot, objects=[deployment(20)], recreate_victims=True
        ).pk
    )
    plain = services.analysis_run(
        analysis_id=services.analysis_create_workload(
            snapshot=demo_snapshot, objects=[deployment(20)]
        ).pk
    )
    run = cascade.run
    assert run is not None
    lost = [o for o in run.owners if o.after < o.before]
    assert lost  # the demo's rollout leaves some owner short
    html = owner_client.get(cascade.get_absolute_url()).content.decode()
    headline = html[html.index('id="verdict"') : html.index('id="run-picture"')]
    assert 'id="cascade"' in headline
    for o in lost[:4]:
        assert f"{o.namespace}/{o.owner} {o.before} → {o.after} running" in headline
    assert 'id="cascade"' not in owner_client.get(plain.get_absolute_url()).content.decode()


def test_kube_scheduler_s_jargon_on_the_page_is_explained(
    owner_client: Any, demo_snapshot: Any
) -> None:
    a = services.analysis_run(
        analysis_id=services.analysis_create_workload(
            snapshot=demo_snapshot, objects=[deployment(20)]
        ).pk
    )
    run = a.run
    assert run is not None and run.stop_reason.value == "no-progress-after-flush"
    html = owner_client.get(a.get_absolute_url()).content.decode()
    glossary = html[html.index('id="glossary"') :][:1500]
    assert "“5-minute leftover flush”" in glossary and "5 minutes in its unschedulable" in glossary
    if any("no new claims to deallocate" in y.message for y in run.cycles):
        assert "“no new claims to deallocate”" in glossary


def test_one_pod_with_recreated_victims_says_it_ran_as_a_workload(
    owner_client: Any, demo_snapshot: Any
) -> None:
    from clusters.demo import demo_cat3_pod

    r = owner_client.post(
        f"/snapshots/{demo_snapshot.pk}/analyses/new/",
        {"mode": "manifest", "manifest": yaml.safe_dump(demo_cat3_pod()), "recreate_victims": "on"},
    )
    a = Analysis.objects.get()
    assert r.status_code == 302 and a.kind == "workload"
    services.analysis_run(analysis_id=a.pk)
    html = owner_client.get(a.get_absolute_url()).content.decode()
    assert 'id="one-pod-workload"' in html and "one-replica workload" in html
