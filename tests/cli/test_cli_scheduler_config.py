"""preemptlab whatif --scheduler-config FILE / --scheduler-preset NAME, and on a live
read OpenShift's Scheduler profile as the cluster's own configuration."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from clusters.demo import demo_cat3_pod

from .conftest import DEMO
from .fake_apiserver import FakeAPIServer

NO_PREEMPTION = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "plugins": {"postFilter": {"disabled": [{"name": "DefaultPreemption"}]}},
        }
    ],
}


def _small(tmp_path: Path) -> Path:
    """A one-replica Deployment of a 100m pod: MostAllocated puts it elsewhere than the
    default profile on the demo."""
    pod = demo_cat3_pod()
    pod["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "100m", "memory": "128Mi"}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "orange"}},
            "template": {"metadata": {"labels": {"app": "orange"}}, "spec": pod["spec"]},
        },
    }
    path = tmp_path / "web.yaml"
    path.write_text(yaml.safe_dump(deployment))
    return path


def test_a_preset_names_the_profile_and_what_it_changed(run_cli: Any, tmp_path: Path) -> None:
    web = _small(tmp_path)
    r = run_cli("whatif", str(DEMO), "-f", str(web), "--scheduler-preset", "most-allocated")
    assert r.returncode == 0, r.stderr.decode()
    out = r.stdout.decode()
    assert out.startswith("Scheduler profile: ")
    assert "(most-allocated; given with the what-if)" in out.splitlines()[0]
    assert (
        "Against the default profile: MostAllocated packs: 1 pod of 1 placed otherwise (web-" in out
    )
    assert "the default profile would choose node-5" in out

    r = run_cli(
        "whatif", str(DEMO), "-f", str(web), "--scheduler-preset", "most-allocated",
        "--format", "markdown",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout.decode().startswith("**Scheduler profile:** ")

    r = run_cli(
        "whatif", str(DEMO), "-f", str(web), "--scheduler-preset", "most-allocated",
        "--format", "json",
    )  # fmt: skip
    body = json.loads(r.stdout)
    assert body["scheduler_profile"] == {
        "name": "default-scheduler",
        "source": "analysis",
        "preset": "most-allocated",
    }


def test_a_configuration_file_and_its_errors(run_cli: Any, tmp_path: Path) -> None:
    config = tmp_path / "sched.yaml"
    config.write_text(yaml.safe_dump(NO_PREEMPTION))
    deployment = _small(tmp_path)
    r = run_cli(
        "whatif", str(DEMO), "-f", str(deployment), "--scheduler-config", str(config),
        "--format", "json",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr.decode()
    assert json.loads(r.stdout)["scheduler_profile"]["source"] == "analysis"

    bad = tmp_path / "bad.yaml"
    bad.write_text(
        yaml.safe_dump(
            {
                **NO_PREEMPTION,
                "profiles": [
                    {
                        "schedulerName": "default-scheduler",
                        "pluginConfig": [
                            {
                                "name": "NodeResourcesFit",
                                "args": {"scoringStrategy": {"type": "Bogus"}},
                            }
                        ],
                    }
                ],
            }
        )
    )
    r = run_cli("whatif", str(DEMO), "-f", str(deployment), "--scheduler-config", str(bad))
    assert r.returncode == 2
    err = r.stderr.decode()
    assert "--scheduler-config: " in err
    assert 'profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "Bogus"' in (
        err
    )
    r = run_cli("whatif", str(DEMO), "-f", str(deployment), "--scheduler-preset", "fastest")
    assert r.returncode == 2
    assert "Unknown scheduler preset 'fastest'" in r.stderr.decode()
    assert "openshift-no-scoring" in r.stderr.decode()


def test_the_live_read_takes_openshifts_scheduler_profile(run_cli: Any, tmp_path: Path) -> None:
    objects: list[dict[str, Any]] = json.loads(DEMO.read_text())["items"]
    scheduler = {
        "apiVersion": "config.openshift.io/v1",
        "kind": "Scheduler",
        "metadata": {"name": "cluster"},
        "spec": {"profile": "HighNodeUtilization"},
    }
    web = _small(tmp_path)
    with FakeAPIServer([*objects, scheduler]).running(tmp_path) as kubeconfig:
        r = run_cli("whatif", "-f", str(web), "--format", "json", "--kubeconfig", str(kubeconfig))
    assert r.returncode == 0, r.stderr.decode()
    assert json.loads(r.stdout)["scheduler_profile"] == {
        "name": "default-scheduler",
        "source": "snapshot",
        "preset": "openshift-high-node-utilization",
    }
    assert "OpenShift's Scheduler profile (openshift-high-node-utilization)" in r.stderr.decode()

    # Not OpenShift: no such resource, no error, the default profile.
    with FakeAPIServer(objects).running(tmp_path) as kubeconfig:
        r = run_cli("whatif", "-f", str(web), "--format", "json", "--kubeconfig", str(kubeconfig))
    assert r.returncode == 0, r.stderr.decode()
    assert json.loads(r.stdout)["scheduler_profile"]["source"] == "default"


def test_the_plan_reads_the_given_configuration(run_cli: Any, tmp_path: Path) -> None:
    config = tmp_path / "sched.yaml"
    config.write_text(yaml.safe_dump(NO_PREEMPTION))
    r = run_cli(
        "plan", str(DEMO), "--scheduler-config", str(config), "--format", "json",
        "--fail-on", "never",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr.decode()
    rules = [f["rule"] for f in json.loads(r.stdout)["findings"]]
    assert rules.count("preemption-disabled") == 1
    r = run_cli("plan", str(DEMO), "--format", "json", "--fail-on", "never")
    assert "preemption-disabled" not in [f["rule"] for f in json.loads(r.stdout)["findings"]]
