"""preemptlab on files and on a live cluster read through the real kubectl (a fake
API server answers kubectl's list calls from the demo's and the real dumps' objects)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from scheduling.engine import analyze, read_documents
from scheduling.engine.capacity import capacity

from .conftest import DEMO, POD, REAL
from .fake_apiserver import FakeAPIServer

# A quota for the pods of class cat-1 in the demo's namespace (quota scoped by class).
QUOTA = {
    "apiVersion": "v1",
    "kind": "ResourceQuota",
    "metadata": {"name": "high", "namespace": "default"},
    "spec": {
        "hard": {"pods": "10"},
        "scopeSelector": {
            "matchExpressions": [
                {"operator": "In", "scopeName": "PriorityClass", "values": ["cat-1"]}
            ]
        },
    },
}


def _demo_objects() -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = json.loads(DEMO.read_text())["items"]
    return items


def _expected(objects: list[dict[str, Any]]) -> dict[str, Any]:
    """The engine's answer, with the verdict the gates judge written out from it."""
    pod = read_documents(POD.read_bytes(), POD.name)[0]
    result = analyze(objects, pod)
    answer: dict[str, Any] = json.loads(json.dumps(result.to_dict()))
    victims = result.explanation.victim_details if answer["outcome"] == "preempts" else []
    stuck = [answer["pod"]] if answer["outcome"] == "unschedulable" else []
    answer["verdict"] = {
        "preempts": bool(victims),
        "victims": [v.key for v in victims],
        "highest_victim_priority": max((v.priority for v in victims), default=None),
        "victim_classes": sorted({v.priority_class for v in victims if v.priority_class}),
        "pdbs_exceeded": sorted({b.pdb for v in victims if v.violates_pdb for b in v.pdbs}),
        "pending": stuck,
        "unschedulable": stuck,
    }
    return answer


def test_whatif_on_a_file_is_the_engines_answer(run_cli: Any) -> None:
    r = run_cli("whatif", str(DEMO), "-f", str(POD), "--format", "json")
    assert r.returncode == 0, r.stderr.decode()
    assert json.loads(r.stdout) == _expected(_demo_objects())


def test_whatif_capacity_is_the_engines_answer(run_cli: Any) -> None:
    r = run_cli("whatif", str(DEMO), "-f", str(POD), "--capacity", "20", "--format", "json")
    assert r.returncode == 0, r.stderr.decode()
    pod = read_documents(POD.read_bytes(), POD.name)[0]
    assert json.loads(r.stdout) == capacity(_demo_objects(), pod, limit=20).to_dict()
    r = run_cli("whatif", str(DEMO), "-f", str(POD), "--capacity", "0")
    assert r.returncode == 2 and "from 1 to" in r.stderr.decode()


def test_gates_and_bad_input_keep_their_exit_statuses(run_cli: Any, tmp_path: Path) -> None:
    r = run_cli("whatif", str(DEMO), "-f", str(POD), "--protect", "cat-1")
    assert r.returncode == 1
    assert r.stderr.decode().startswith("GateFailed: --protect cat-1")
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: Pod\nmetadata: {name: x}\nspec: {}\n")
    r = run_cli("whatif", str(DEMO), "-f", str(bad))
    assert r.returncode == 2 and "container" in r.stderr.decode()


def test_snapshot_and_manifest_from_standard_input(run_cli: Any) -> None:
    r = run_cli("whatif", "-", "-f", str(POD), "--format", "json", stdin=DEMO.read_bytes())
    assert r.returncode == 0, r.stderr.decode()
    assert json.loads(r.stdout) == _expected(_demo_objects())


def test_the_live_context_answers_as_the_file(run_cli: Any, tmp_path: Path) -> None:
    fake = FakeAPIServer(_demo_objects())
    with fake.running(tmp_path) as kubeconfig:
        r = run_cli("whatif", "-f", str(POD), "--format", "json", "--kubeconfig", str(kubeconfig))
    assert r.returncode == 0, r.stderr.decode()
    assert json.loads(r.stdout) == _expected(_demo_objects())
    assert "reading nodes, pods, poddisruptionbudgets, priorityclasses" in r.stderr.decode()
    # Only reads: every request kubectl made was a GET of discovery or a list.
    assert fake.requests and all("/watch" not in p for p in fake.requests)


@pytest.mark.parametrize("cluster", ["ocp-aws", "ocp-vsphere"])
def test_snapshot_of_a_live_real_cluster_is_the_upload_format(
    run_cli: Any, tmp_path: Path, cluster: str
) -> None:
    items = json.loads(gzip.decompress((REAL / cluster / "snapshot.json.gz").read_bytes()))["items"]
    wanted = [
        o for o in items if o["kind"] in ("Node", "Pod", "PodDisruptionBudget", "PriorityClass")
    ]
    out = tmp_path / "snap.json"
    with FakeAPIServer(wanted).running(tmp_path) as kubeconfig:
        r = run_cli("snapshot", "-o", str(out), "--kubeconfig", str(kubeconfig))
    assert r.returncode == 0, r.stderr.decode()
    saved = json.loads(out.read_text())
    assert saved["kind"] == "List"
    by_kind = {k: sum(o["kind"] == k for o in wanted) for k in {o["kind"] for o in wanted}}
    assert {k: sum(o["kind"] == k for o in saved["items"]) for k in by_kind} == by_kind
    # Scrubbed: no managedFields, no last-applied configuration, no env values.
    text = out.read_text()
    assert "managedFields" not in text and "last-applied-configuration" not in text
    # And a what-if on it answers as on the dump itself.
    pod = tmp_path / "pod.json"
    pod.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "big", "namespace": "default"},
                "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]},
            }
        )
    )
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps({"kind": "List", "items": wanted}))
    answers = [run_cli("whatif", str(f), "-f", str(pod), "--format", "json") for f in (out, dump)]
    assert [a.returncode for a in answers] == [0, 0], answers[0].stderr.decode()
    assert json.loads(answers[0].stdout) == json.loads(answers[1].stdout)


def test_a_selector_narrows_pending_pods_only(run_cli: Any, tmp_path: Path) -> None:
    objects = _demo_objects()
    pending = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "waiting", "namespace": "other", "labels": {"app": "x"}},
        "spec": {"containers": [{"name": "c", "image": "x"}]},
        "status": {"phase": "Pending"},
    }
    out = tmp_path / "snap.json"
    with FakeAPIServer([*objects, pending]).running(tmp_path) as kubeconfig:
        r = run_cli(
            "snapshot", "-o", str(out), "--namespace", "default", "--kubeconfig", str(kubeconfig)
        )
    assert r.returncode == 0, r.stderr.decode()
    names = {o["metadata"]["name"] for o in json.loads(out.read_text())["items"]}
    bound = {o["metadata"]["name"] for o in objects if o["kind"] == "Pod"}
    assert bound <= names and "waiting" not in names


def test_snapshot_keeps_resource_quotas_when_it_may_list_them(run_cli: Any, tmp_path: Path) -> None:
    kinds = []
    for forbidden in (set(), {"resourcequotas"}):
        out = tmp_path / "snap.json"
        with FakeAPIServer([*_demo_objects(), QUOTA], forbidden=forbidden).running(
            tmp_path
        ) as kubeconfig:
            r = run_cli("snapshot", "-o", str(out), "--kubeconfig", str(kubeconfig))
        assert r.returncode == 0, r.stderr.decode()
        kinds.append({o["kind"] for o in json.loads(out.read_text())["items"]})
    assert "ResourceQuota" in kinds[0]
    assert "ResourceQuota" not in kinds[1] and "Pod" in kinds[1]
    assert (
        "ResourceQuotas left out: the cluster refused to list resourcequotas" in r.stderr.decode()
    )


def test_rbac_refusing_a_list_says_which_and_what_to_ask_for(run_cli: Any, tmp_path: Path) -> None:
    with FakeAPIServer(_demo_objects(), forbidden={"pods"}).running(tmp_path) as kubeconfig:
        r = run_cli("whatif", "-f", str(POD), "--kubeconfig", str(kubeconfig))
    assert r.returncode == 2
    err = r.stderr.decode()
    assert "the cluster refused to list pods" in err and "ClusterRole" in err


def test_no_kubectl_and_no_context_say_what_to_do(run_cli: Any, tmp_path: Path) -> None:
    r = run_cli("whatif", "-f", str(POD), "--kubectl", str(tmp_path / "no-kubectl"))
    assert r.returncode == 2 and "was not found: install kubectl" in r.stderr.decode()
    empty = tmp_path / "empty-kubeconfig"
    empty.write_text("apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n")
    r = run_cli("whatif", "-f", str(POD), "--kubeconfig", str(empty))
    assert r.returncode == 2
    err = r.stderr.decode()
    assert "preemptlab:" in err and ("--context" in err or "could not be reached" in err), err


def test_whatif_with_a_class_the_snapshot_lacks(run_cli: Any, tmp_path: Path) -> None:
    """The demo without cat-3, and cat-3 = 30000 given with the what-if (in the manifest,
    or as --priority-class): the answer of the full demo, where cat-3 is a real class."""
    items = [
        o
        for o in _demo_objects()
        if not (o["kind"] == "PriorityClass" and o["metadata"]["name"] == "cat-3")
    ]
    snapshot = tmp_path / "no-cat3.json"
    snapshot.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    expected = _expected(_demo_objects())
    cat3 = (
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: cat-3\n"
        "value: 30000\n---\n"
    )
    with_class = tmp_path / "with-class.yaml"
    with_class.write_text(cat3 + POD.read_text())
    record = {
        "name": "cat-3",
        "value": 30000,
        "preemption_policy": "PreemptLowerPriority",
        "global_default": False,
        "replaces": None,
    }
    for args in (
        ("-f", str(with_class)),
        ("-f", str(POD), "--priority-class", "cat-3=30000"),
    ):
        r = run_cli("whatif", str(snapshot), *args, "--format", "json")
        assert r.returncode == 0, r.stderr.decode()
        got = json.loads(r.stdout)
        assert got == {**expected, "hypothetical_classes": [record]}
    r = run_cli("whatif", str(snapshot), "-f", str(POD))
    assert r.returncode == 2 and "no PriorityClass with name cat-3" in r.stderr.decode()
    r = run_cli("whatif", str(snapshot), "-f", str(POD), "--priority-class", "system-x=5")
    assert r.returncode == 2
    assert "PriorityClass system-x: metadata.name: Forbidden" in r.stderr.decode()


def test_plan_on_a_file_and_on_the_live_context_with_its_quotas(
    run_cli: Any, tmp_path: Path
) -> None:
    r = run_cli("plan", str(DEMO), "--format", "json", "--fail-on", "never")
    assert r.returncode == 0, r.stderr.decode()
    from_file = json.loads(r.stdout)
    rungs = {c["name"]: c for c in from_file["ladder"]}
    assert rungs["cat-1"]["global_default"] and rungs["cat-3"]["pods"] == 0
    assert rungs["cat-1"]["quotas"] == []
    # The demo's cat-3 is used by no pod: a note, so --fail-on info fails the job.
    r = run_cli("plan", str(DEMO), "--fail-on", "info")
    assert r.returncode == 1
    assert r.stderr.decode().startswith("GateFailed: ")
    assert run_cli("plan", str(DEMO), "--critical", "cat-9").returncode == 2
    # Live: the same plan, plus the quota scoped to cat-1 that kubectl listed.
    with FakeAPIServer([*_demo_objects(), QUOTA]).running(tmp_path) as kubeconfig:
        r = run_cli(
            "plan", "--format", "json", "--fail-on", "never", "--kubeconfig", str(kubeconfig)
        )
    assert r.returncode == 0, r.stderr.decode()
    live = {c["name"]: c for c in json.loads(r.stdout)["ladder"]}
    assert live["cat-1"]["quotas"] == ["ResourceQuota default/high"]
    assert live["cat-2"] == rungs["cat-2"]


def test_plan_passes_first_in_line_on(run_cli: Any) -> None:
    r = run_cli(
        "plan", str(DEMO), "--first-in-line", "--size", "1,2Gi", "--limit", "20",
        "--format", "json", "--fail-on", "never",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr.decode()
    body = json.loads(r.stdout)
    assert body["first_in_line_probe"]["limit"] == 20
    # The first 1-CPU probe at cat-1's level takes node-5's purple (derived by hand in
    # tests/engine/test_first_in_line.py).
    assert body["first_in_line"][0]["app"] == "Deployment default/purple"
    bad = run_cli("plan", str(DEMO), "--first-in-line", "--size", "1")
    assert bad.returncode == 2 and "--size" in bad.stderr.decode()


def test_the_installed_cli_prints_the_workloads_outcome(run_cli: Any, tmp_path: Path) -> None:
    """Ten cat-1 replicas of 175m / 256Mi on the demo: 8 find room, 2 stay pending."""
    work = tmp_path / "web.yaml"
    work.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
        "spec:\n  replicas: 10\n  selector: {matchLabels: {app: web}}\n  template:\n"
        "    metadata: {labels: {app: web}}\n    spec:\n      priorityClassName: cat-1\n"
        "      containers:\n      - name: main\n        image: registry.k8s.io/pause:3.10\n"
        "        resources: {requests: {cpu: 175m, memory: 256Mi}}\n"
    )
    r = run_cli("whatif", str(DEMO), "-f", str(work), "--format", "json")
    assert r.returncode == 0, r.stderr.decode()
    answer = json.loads(r.stdout)
    assert answer["outcome"] == "some-run"
    assert sum(p["final"] == "bound" for p in answer["pods"]) == 8


def test_a_file_that_is_not_a_pod_is_told_what_it_holds(run_cli: Any, tmp_path: Path) -> None:
    """The snapshot given as the what-if, a Node, a values file: each is named for what it
    holds, with what to give instead (not "a Pod needs at least one container")."""
    snap = tmp_path / "snap.json"
    snap.write_text(DEMO.read_text())
    r = run_cli("whatif", str(DEMO), "-f", str(snap))
    err = r.stderr.decode()
    assert r.returncode == 2, err
    items = json.loads(DEMO.read_text())["items"]
    assert f"snap.json holds {len(items)} objects (" in err
    assert f"{sum(i['kind'] == 'Node' for i in items)} Nodes" in err
    assert "not a Pod or a workload: it reads as a snapshot" in err
    assert "preemptlab whatif snap.json -f POD.yaml" in err
    assert "container" not in err

    values = tmp_path / "values.yaml"
    values.write_text("replicaCount: 3\nimage: {repository: nginx}\n")
    r = run_cli("whatif", str(DEMO), "-f", str(values))
    err = r.stderr.decode()
    assert r.returncode == 2
    assert "values.yaml holds a document without a kind (keys: replicaCount, image)" in err
    assert (
        "give the manifest of a Pod, Deployment, ReplicaSet, StatefulSet, Job, DaemonSet, "
        "CronJob, DeploymentConfig or Rollout" in err
    )


def test_priorities_print_plain_as_kubectl_prints_them(run_cli: Any) -> None:
    """One rule for a priority, in the what-if's and the plan's text alike: kubectl's
    plain integer (2000000000), never with thousands separators."""
    plan = run_cli("plan", str(DEMO), "--format", "text", "--fail-on", "never")
    assert plan.returncode == 0, plan.stderr.decode()
    text = plan.stdout.decode()
    assert "2000000000" in text and "30000" in text
    assert "2,000,000,000" not in text and "30,000" not in text
    whatif = run_cli("whatif", str(DEMO), "-f", str(POD))
    assert whatif.stdout.decode().startswith("default/orange-0 (priority 30000,")
