"""The controller kinds beyond apps/v1: DaemonSet (a pod pinned per node, as the
DaemonSet controller pins it), CronJob (one run of its job template), OpenShift's
DeploymentConfig and Argo Rollouts' Rollout (a Deployment of their template)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from scheduling.engine import InvalidInput, load_cluster, simulate
from scheduling.engine.workload import admit, expand_workload
from tests.engine.builders import make_node, make_pod, make_priority_class

TEMPLATE: dict[str, Any] = {
    "metadata": {"labels": {"app": "agent"}},
    "spec": {
        "priorityClassName": "high",
        "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "500m"}}}],
    },
}


def _full_cluster(*extra: dict[str, Any]) -> list[dict[str, Any]]:
    """Three 1-cpu nodes, each full with one low-priority pod of 1 cpu; a class "high"."""
    objects: list[dict[str, Any]] = [make_priority_class("high", 1000), *extra]
    for i in (1, 2, 3):
        objects.append(make_node(f"n{i}").capacity(cpu="1", memory="4Gi", pods="10").obj())
        objects.append(
            make_pod(f"low-{i}").priority(10).req(cpu="1").node(f"n{i}").labels(app="low").obj()
        )
    return objects


def daemon_set(template: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "agent", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": template or TEMPLATE},
    }


def _run(objects: list[dict[str, Any]], workload: list[dict[str, Any]]) -> Any:
    cluster = load_cluster(objects)
    w = expand_workload(workload, nodes=cluster.node_infos)
    admit(w, cluster.resolver)
    return w, simulate(cluster, w.pods)


def test_a_daemon_set_on_three_full_nodes_preempts_on_each() -> None:
    # By hand: each node has 1 cpu, all taken by low-i (priority 10); the DaemonSet's pod
    # for node i (500m, priority 1000) may only go to node i, where evicting low-i is the
    # one way to make room: three preemptions, one per node, each pod bound to its own.
    w, sim = _run(_full_cluster(), [daemon_set()])
    assert len(w.pods) == 3
    assert w.describe() == "DaemonSet default/agent (3 pods, one a node)"
    pinned = [
        p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        for p in w.pods
    ]
    assert [t["nodeSelectorTerms"][0]["matchFields"][0]["values"] for t in pinned] == [
        ["n1"],
        ["n2"],
        ["n3"],
    ]
    bound = {p.pod: p.node for p in sim.pods if p.bound}
    assert sorted(bound.values()) == ["n1", "n2", "n3"]
    for pod in w.pods:
        node = pod["spec"]["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"
        ]["nodeSelectorTerms"][0]["matchFields"][0]["values"][0]
        assert bound[f"default/{pod['metadata']['name']}"] == node
    assert sorted(sim.to_dict()["deleted_victims"]) == [
        "default/low-1",
        "default/low-2",
        "default/low-3",
    ]


def test_the_controllers_tolerations_are_added_and_a_tainted_node_left_out() -> None:
    objects = _full_cluster()
    # n3 is cordoned (the controller's unschedulable toleration lets the pod there) and
    # n2 carries a taint no toleration of the template or the controller covers.
    for o in objects:
        if o["kind"] == "Node" and o["metadata"]["name"] == "n2":
            o["spec"]["taints"] = [{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]
        if o["kind"] == "Node" and o["metadata"]["name"] == "n3":
            o["spec"]["unschedulable"] = True
            o["spec"].setdefault("taints", []).append(
                {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
            )
    cluster = load_cluster(objects)
    w = expand_workload([daemon_set()], nodes=cluster.node_infos)
    nodes = [
        p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
            "nodeSelectorTerms"
        ][0]["matchFields"][0]["values"][0]
        for p in w.pods
    ]
    assert nodes == ["n1", "n3"]
    keys = {(t["key"], t["effect"]) for t in w.pods[0]["spec"]["tolerations"]}
    assert keys == {
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    }
    # Tolerating the taint admits n2 too.
    tolerant = copy.deepcopy(TEMPLATE)
    tolerant["spec"]["tolerations"] = [{"key": "gpu", "operator": "Exists"}]
    assert len(expand_workload([daemon_set(tolerant)], nodes=cluster.node_infos).pods) == 3


def test_a_daemon_set_whose_selector_admits_no_node_is_refused() -> None:
    cluster = load_cluster(_full_cluster())
    picky = copy.deepcopy(TEMPLATE)
    picky["spec"]["nodeSelector"] = {"pool": "gpu"}
    with pytest.raises(InvalidInput, match="admit none of the 3 nodes"):
        expand_workload([daemon_set(picky)], nodes=cluster.node_infos)


def _deployment(replicas: int) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "agent"}},
            "template": TEMPLATE,
        },
    }


def _cron_job() -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "schedule": "*/5 * * * *",
            "jobTemplate": {
                "spec": {
                    "parallelism": 2,
                    "completions": 2,
                    "template": {
                        **TEMPLATE,
                        "spec": {**TEMPLATE["spec"], "restartPolicy": "Never"},
                    },
                }
            },
        },
    }


def _deployment_config() -> dict[str, Any]:
    return {
        "apiVersion": "apps.openshift.io/v1",
        "kind": "DeploymentConfig",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 2, "selector": {"app": "agent"}, "template": TEMPLATE},
    }


def _rollout() -> dict[str, Any]:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Rollout",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "agent"}},
            "template": TEMPLATE,
            "strategy": {"canary": {"steps": [{"setWeight": 20}]}},
        },
    }


@pytest.mark.parametrize("make", [_cron_job, _deployment_config, _rollout])
def test_it_is_answered_like_a_deployment_of_its_pod_template(make: Any) -> None:
    _, expected = _run(_full_cluster(), [_deployment(2)])
    w, sim = _run(_full_cluster(), [make()])
    assert len(w.pods) == 2
    assert [w.objects[0].kind] == [make()["kind"]]
    for got, want in zip(sim.pods, expected.pods, strict=True):
        assert (got.bound, got.node, got.priority) == (want.bound, want.node, want.priority)
    assert sim.to_dict()["deleted_victims"] == expected.to_dict()["deleted_victims"]


def test_their_pods_carry_their_controllers_names_and_labels() -> None:
    (job_pod, _) = expand_workload([_cron_job()]).pods
    assert job_pod["metadata"]["ownerReferences"][0]["kind"] == "Job"
    assert job_pod["metadata"]["labels"]["batch.kubernetes.io/job-name"].startswith("web-")
    dc = expand_workload([_deployment_config()]).pods[0]
    assert dc["metadata"]["labels"]["deploymentconfig"] == "web"
    assert dc["metadata"]["name"].startswith("web-1-")
    rollout = expand_workload([_rollout()]).pods[0]
    assert "rollouts-pod-template-hash" in rollout["metadata"]["labels"]


def test_a_rollout_of_another_group_or_a_workload_ref_is_refused() -> None:
    other = {**_rollout(), "apiVersion": "example.com/v1"}
    with pytest.raises(InvalidInput, match=r"argoproj\.io"):
        expand_workload([other])
    ref = _rollout()
    ref["spec"] = {"replicas": 1, "workloadRef": {"kind": "Deployment", "name": "web"}}
    with pytest.raises(InvalidInput, match="give that Deployment"):
        expand_workload([ref])
