"""What a pipeline gives the CLI, on the demo and on a real dump: gates on replicas left
pending or unschedulable, a file that is not a snapshot refused (exit 2), chart output
(a Deployment with its Service, ConfigMap, Secret, PDB and PriorityClass) answered
whole, and the workload kinds beyond apps/v1."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli.conftest import DEMO, REAL

SECRET_VALUE = "hunter2-not-for-logs"
PORT = 34567


def _demo() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DEMO.read_text())
    return data


def _real(name: str = "ocp-aws") -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        gzip.decompress((REAL / name / "snapshot.json.gz").read_bytes())
    )
    return data


def _nodes(dump: dict[str, Any]) -> list[dict[str, Any]]:
    return [o for o in dump["items"] if o["kind"] == "Node"]


def _untainted(dump: dict[str, Any]) -> list[str]:
    """The nodes without a NoSchedule or NoExecute taint."""
    return [
        n["metadata"]["name"]
        for n in _nodes(dump)
        if not any(t["effect"] in ("NoSchedule", "NoExecute") for t in n["spec"].get("taints", []))
        and not n["spec"].get("unschedulable")
    ]


def _template(**spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"labels": {"app": "web"}},
        "spec": {
            "containers": [
                {
                    "name": "web",
                    "image": "web:1",
                    "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}},
                    "ports": [{"containerPort": 8080, "hostPort": PORT}],
                }
            ],
            **spec,
        },
    }


def _deployment(replicas: int, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": _template(**spec),
        },
    }


def _write(path: Path, *docs: Any) -> str:
    path.write_text(yaml.safe_dump_all(list(docs)))
    return str(path)


def _with_sixth_node(tmp_path: Path) -> str:
    """The demo with node-6, a copy of node-5 without its pods."""
    dump = _demo()
    node = copy.deepcopy(next(n for n in _nodes(dump) if n["metadata"]["name"] == "node-5"))
    node["metadata"]["name"] = "node-6"
    node["metadata"]["labels"]["kubernetes.io/hostname"] = "node-6"
    node["metadata"].pop("uid", None)
    dump["items"].append(node)
    path = tmp_path / "demo6.json"
    path.write_text(json.dumps(dump))
    return str(path)


def test_six_of_seven_fails_only_with_fail_on_pending(run_cli: Any, tmp_path: Path) -> None:
    # By hand: every replica asks host port 34567, so one a node; 6 nodes, 7 replicas,
    # and the 7th (priority 0) has no one of lower priority to preempt.
    snap = _with_sixth_node(tmp_path)
    manifest = _write(tmp_path / "web.yaml", _deployment(7))
    r = run_cli("whatif", snap, "-f", manifest)
    assert r.returncode == 0, r.stderr.decode()
    assert "6 of 7 replicas run" in r.stdout.decode()
    r = run_cli("whatif", snap, "-f", manifest, "--fail-on-pending")
    assert r.returncode == 1, r.stderr.decode()
    err = r.stderr.decode().strip()
    assert "--fail-on-pending: Deployment default/web (7 replicas): 1 of 7 pods stay pending" in err
    assert len(err.splitlines()) == 1
    r = run_cli("whatif", snap, "-f", manifest, "--fail-on-unschedulable")
    assert r.returncode == 1
    assert "cannot be scheduled, even by preempting" in r.stderr.decode()
    # The API's verdict is the same: the JSON answer carries it.
    r = run_cli("whatif", snap, "-f", manifest, "--format", "json")
    verdict = json.loads(r.stdout)["verdict"]
    assert len(verdict["pending"]) == 1 and verdict["unschedulable"] == verdict["pending"]
    assert verdict["victims"] == []


def test_a_replica_left_pending_on_a_real_dump(run_cli: Any, tmp_path: Path) -> None:
    dump = _real()
    workers = [
        n
        for n in _untainted(dump)
        if "node-role.kubernetes.io/worker"
        in next(o for o in _nodes(dump) if o["metadata"]["name"] == n)["metadata"]["labels"]
    ]
    snap = tmp_path / "real.json"
    snap.write_text(json.dumps(dump))
    replicas = len(workers) + 1
    manifest = _write(
        tmp_path / "web.yaml",
        _deployment(replicas, nodeSelector={"node-role.kubernetes.io/worker": ""}),
    )
    r = run_cli("whatif", str(snap), "-f", manifest)
    assert r.returncode == 0, r.stderr.decode()
    assert f"{len(workers)} of {replicas} replicas run" in r.stdout.decode()
    r = run_cli("whatif", str(snap), "-f", manifest, "--fail-on-pending")
    assert r.returncode == 1
    assert f"1 of {replicas} pods stay pending" in r.stderr.decode()


def test_a_deployment_file_as_the_snapshot_is_bad_input(run_cli: Any, tmp_path: Path) -> None:
    deploy = _write(tmp_path / "deploy.yaml", _deployment(2))
    r = run_cli("whatif", deploy, "-f", deploy, "--fail-on-preempt", "--fail-on-pdb-violation")
    assert r.returncode == 2
    err = r.stderr.decode()
    assert (
        "deploy.yaml holds a Deployment: no nodes to run the pod on, so it is not a snapshot" in err
    )


def _chart(namespace: str, pdb_app: str) -> list[dict[str, Any]]:
    """What helm template prints: a Deployment with its Service, ConfigMap, Secret, a
    PDB (named as one the snapshot has, for the demo) and the chart's PriorityClass."""
    deployment = _deployment(2, priorityClassName="chart-critical")
    deployment["metadata"]["namespace"] = namespace
    del deployment["spec"]["template"]["spec"]["containers"][0]["ports"]
    return [
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "web", "namespace": namespace},
            "stringData": {"password": SECRET_VALUE},
        },
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "web"}, "data": {"k": "v"}},
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "web", "namespace": namespace},
            "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]},
        },
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "chart-critical"},
            "value": 123_456,
        },
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": f"{pdb_app}-pdb", "namespace": namespace},
            "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": pdb_app}}},
        },
        deployment,
    ]


@pytest.mark.parametrize("where", ["demo", "ocp-aws"])
def test_chart_output_is_answered_whole(run_cli: Any, tmp_path: Path, where: str) -> None:
    dump = _demo() if where == "demo" else _real()
    # The demo's purple-pdb (minAvailable 3) is replaced by the chart's (maxUnavailable 1).
    namespace, app = ("default", "purple") if where == "demo" else ("default", "web")
    matching = sum(
        1
        for o in dump["items"]
        if o["kind"] == "Pod"
        and o["metadata"].get("namespace") == namespace
        and o["spec"].get("nodeName")
        and (o["metadata"].get("labels") or {}).get("app") == app
    )
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps(dump))
    chart = tmp_path / "chart.yaml"
    chart.write_text(yaml.safe_dump_all(_chart(namespace, app)))
    r = run_cli("whatif", str(snap), "-f", "-", "--format", "json", stdin=chart.read_bytes())
    assert r.returncode == 0, r.stderr.decode()
    assert SECRET_VALUE not in r.stdout.decode() + r.stderr.decode()
    body = json.loads(r.stdout)
    pdb = f"{namespace}/{app}-pdb"
    (report,) = [p for p in body["pdb_report"] if p["pdb"] == pdb]
    # maxUnavailable 1 over the pods it matches, all running: 1 allowed (0 with none).
    assert report["disruptions_allowed"] == min(1, matching)
    (budget,) = body["manifest"]["budgets"]
    assert budget == {
        "pdb": pdb,
        "disruptions_allowed": min(1, matching),
        "matching_pods": matching,
        "replaces": where == "demo",
    }
    assert [p["priority"] for p in body["pods"]] == [123_456, 123_456]
    assert body["manifest"]["skipped"] == [
        {"kind": "Secret", "count": 1},
        {"kind": "ConfigMap", "count": 1},
        {"kind": "Service", "count": 1},
    ]
    assert body["manifest"]["note"].startswith("Skipped 1 Secret, 1 ConfigMap and 1 Service:")
    text = run_cli("whatif", str(snap), "-f", str(chart)).stdout.decode()
    assert "Skipped 1 Secret, 1 ConfigMap and 1 Service" in text
    assert f"PDB {pdb} from the manifest" in text


def test_a_chart_without_a_workload_says_what_it_held(run_cli: Any, tmp_path: Path) -> None:
    chart = _write(tmp_path / "chart.yaml", *_chart("default", "web")[:5])
    r = run_cli("whatif", str(DEMO), "-f", chart)
    assert r.returncode == 2
    assert (
        "holds 5 objects (1 Secret, 1 ConfigMap, 1 Service, 1 PriorityClass)" in r.stderr.decode()
    )


def test_a_daemon_set_runs_on_every_node_it_tolerates_on_a_real_dump(
    run_cli: Any, tmp_path: Path
) -> None:
    dump = _real()
    snap = tmp_path / "real.json"
    snap.write_text(json.dumps(dump))
    template = _template()
    del template["spec"]["containers"][0]["ports"]
    daemon_set = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "agent", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": template},
    }
    r = run_cli(
        "whatif", str(snap), "-f", _write(tmp_path / "ds.yaml", daemon_set), "--format", "json"
    )
    assert r.returncode == 0, r.stderr.decode()
    body = json.loads(r.stdout)
    # The masters' NoSchedule taint is no taint the controller tolerates for it.
    assert sorted(p["node"] for p in body["pods"]) == sorted(_untainted(dump))
    tolerant = copy.deepcopy(daemon_set)
    tolerant["spec"]["template"]["spec"]["tolerations"] = [{"operator": "Exists"}]
    r = run_cli(
        "whatif", str(snap), "-f", _write(tmp_path / "ds2.yaml", tolerant), "--format", "json"
    )
    body = json.loads(r.stdout)
    assert sorted(p["node"] for p in body["pods"]) == sorted(
        n["metadata"]["name"] for n in _nodes(dump)
    )


@pytest.mark.parametrize("kind", ["CronJob", "DeploymentConfig", "Rollout"])
def test_the_other_kinds_are_answered_like_their_pod_template(
    run_cli: Any, tmp_path: Path, kind: str
) -> None:
    template = _template()
    del template["spec"]["containers"][0]["ports"]
    deployment = _deployment(2)
    deployment["spec"]["template"] = template
    objects: dict[str, Any] = {
        "CronJob": {
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {
                "schedule": "0 * * * *",
                "jobTemplate": {
                    "spec": {
                        "parallelism": 2,
                        "template": {
                            **template,
                            "spec": {**template["spec"], "restartPolicy": "Never"},
                        },
                    }
                },
            },
        },
        "DeploymentConfig": {
            "apiVersion": "apps.openshift.io/v1",
            "kind": "DeploymentConfig",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": 2, "selector": {"app": "web"}, "template": template},
        },
        "Rollout": {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Rollout",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {**deployment["spec"], "strategy": {"canary": {}}},
        },
    }

    def run(obj: dict[str, Any], name: str) -> dict[str, Any]:
        r = run_cli("whatif", str(DEMO), "-f", _write(tmp_path / name, obj), "--format", "json")
        assert r.returncode == 0, r.stderr.decode()
        got: dict[str, Any] = json.loads(r.stdout)
        return got

    want, got = run(deployment, "d.yaml"), run(objects[kind], "k.yaml")
    assert [(p["final"], p["node"], p["priority"]) for p in got["pods"]] == [
        (p["final"], p["node"], p["priority"]) for p in want["pods"]
    ]
    assert got["outcome"] == want["outcome"]
