"""Findings about objects the platform's operators own (plan/owned.py): notes saying so,
without the fix an operator would revert, listed after the user's own; on the real
OpenShift dumps and on small clusters with each mark."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from scheduling.engine import load_cluster
from scheduling.engine.plan import INFO, WARNING, audit
from scheduling.engine.plan.owned import OWNED_ADVICE

from ..builders import make_node, make_pdb, make_pod, make_priority_class
from .helpers import findings, owned

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "realworld"


def _real(cluster: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = json.loads(
        gzip.decompress((REAL / cluster / "snapshot.json.gz").read_bytes())
    )["items"]
    return items


# The DaemonSets each dump's rule flags (the pods of system-cluster-critical DaemonSets,
# or openshift-user-critical's network-check-target, share nodes with
# system-node-critical pods): all in OpenShift's platform namespaces.
FLAGGED = {
    "ocp-aws": [
        "openshift-image-registry/node-ca",
        "openshift-machine-config-operator/machine-config-server",
        "openshift-monitoring/node-exporter",
        "openshift-multus/multus-admission-controller",
        "openshift-network-diagnostics/network-check-target",
        "openshift-sdn/sdn-controller",
    ],
    "ocp-vsphere": [
        "openshift-image-registry/node-ca",
        "openshift-ingress-canary/ingress-canary",
        "openshift-machine-config-operator/machine-config-server",
        "openshift-monitoring/node-exporter",
        "openshift-multus/multus-admission-controller",
        "openshift-network-diagnostics/network-check-target",
        "openshift-sdn/sdn-controller",
    ],
}


@pytest.mark.parametrize("cluster", sorted(FLAGGED))
def test_the_platforms_daemonsets_on_openshift_are_notes_saying_who_owns_them(
    cluster: str,
) -> None:
    found = audit(load_cluster(_real(cluster)))
    below = [f for f in found if f.rule == "daemonset-below-neighbours"]
    assert [f.objects for f in below] == [(f"DaemonSet {ref}",) for ref in FLAGGED[cluster]]
    for f in below:
        namespace = f.objects[0].split(" ")[1].split("/")[0]
        # The ingress operator labels its canary's pods: that mark comes first.
        label = (
            "label ingresscanary.operator.openshift.io/daemonset-ingresscanary; "
            if namespace == "openshift-ingress-canary"
            else ""
        )
        assert f.severity == INFO and f.fix == ""
        assert f.operator_owned == (
            f"Owned by the cluster's operators ({label}namespace {namespace}, one of "
            f"OpenShift's platform namespaces (openshift-*)): {OWNED_ADVICE}."
        )
    # The user's own finding stays a warning, the only one, listed first.
    assert [(f.rule, f.severity) for f in found if f.operator_owned is None] == [
        ("no-global-default", WARNING)
    ]
    assert found[0].rule == "no-global-default"
    assert found[0].to_dict()["operator_owned"] is None


def _below(namespace: str, **labels: str) -> list[dict[str, Any]]:
    """An agent DaemonSet of ``namespace`` (with ``labels``) below a web pod on n1."""
    agent = make_pod("agent-n1", namespace).node("n1").priority_class("low")
    for k, v in labels.items():
        agent.label(k, v)
    return [
        make_priority_class("low", 10, global_default=True),
        make_priority_class("high", 1000),
        make_node("n1").obj(),
        owned(agent.obj(), "DaemonSet", "agent"),
        make_pod("web").node("n1").priority_class("high").obj(),
    ]


@pytest.mark.parametrize(
    ("namespace", "labels", "mark"),
    [
        ("openshift", {}, "namespace openshift, one of OpenShift's platform namespaces"),
        ("openshift-dns", {}, "namespace openshift-dns, one of OpenShift's platform namespaces"),
        (
            "kube-system",
            {"addonmanager.kubernetes.io/mode": "Reconcile"},
            "label addonmanager.kubernetes.io/mode=Reconcile",
        ),
        (
            "kube-system",
            {"kubernetes.azure.com/managedby": "aks"},
            "kubernetes.azure.com/managedby",
        ),
        (
            "monitoring",
            {"app.kubernetes.io/managed-by": "prometheus-operator"},
            "label app.kubernetes.io/managed-by=prometheus-operator",
        ),
        (
            "dns",
            {"dns.operator.openshift.io/daemonset-dns": "default"},
            "label dns.operator.openshift.io/daemonset-dns",
        ),
        ("cat", {"olm.catalogSource": "community"}, "label olm.catalogSource"),
    ],
)
def test_each_mark_makes_the_finding_the_operators(
    namespace: str, labels: dict[str, str], mark: str
) -> None:
    (f,) = findings(_below(namespace, **labels), "daemonset-below-neighbours")
    assert f.severity == INFO and f.fix == ""
    assert f.operator_owned is not None and mark in f.operator_owned


@pytest.mark.parametrize(
    ("namespace", "labels"),
    [
        ("monitoring", {}),
        # Only openshift and openshift-* are the platform's; a user's namespace may say it.
        ("my-openshift-tools", {}),
        ("openshiftish", {}),
        # The addon manager's other mode creates the object once and leaves it to the user.
        ("kube-system", {"addonmanager.kubernetes.io/mode": "EnsureExists"}),
        # Helm installs what the user asks and keeps no watch on it.
        ("web", {"app.kubernetes.io/managed-by": "Helm"}),
        ("web", {"operator": "yes", "team.example.com/operator-on-call": "ana"}),
    ],
)
def test_the_users_own_objects_keep_their_warning_and_fix(
    namespace: str, labels: dict[str, str]
) -> None:
    (f,) = findings(_below(namespace, **labels), "daemonset-below-neighbours")
    assert f.severity == WARNING and f.operator_owned is None and f.fix


def test_a_pod_an_operators_custom_resource_made_is_the_operators() -> None:
    # A pod whose controlling owner is no built-in controller (OLM's catalog pods are a
    # CatalogSource's), slow to go beside a higher pod.
    pod = owned(
        make_pod("redhat-operators-x", "marketplace")
        .node("n1")
        .priority_class("low")
        .grace(600)
        .obj(),
        "CatalogSource",
        "redhat-operators",
    )
    objects = [
        make_priority_class("low", 10, global_default=True),
        make_priority_class("high", 1000),
        make_node("n1").obj(),
        pod,
        make_pod("web").node("n1").priority_class("high").obj(),
    ]
    (f,) = findings(objects, "long-grace-low-priority")
    assert f.objects == ("CatalogSource marketplace/redhat-operators",)
    assert f.severity == INFO and f.fix == ""
    assert f.operator_owned == (
        "Owned by the cluster's operators (made by the controller of CatalogSource "
        f"redhat-operators, a custom resource): {OWNED_ADVICE}."
    )


def test_a_budget_in_a_platform_namespace_is_the_operators_and_a_class_the_users() -> None:
    pdb = make_pdb("guard", namespace="openshift-etcd", match_labels={"app": "etcd"})
    pdb["spec"]["minAvailable"] = 2
    objects = [
        *(make_pod(f"etcd-{i}", "openshift-etcd").label("app", "etcd").obj() for i in range(2)),
        pdb,
        make_priority_class("spare", 500),  # used by no pod: the user's to delete
    ]
    found = audit(load_cluster(objects))
    (never,) = [f for f in found if f.rule == "pdb-never-allows"]
    assert never.severity == INFO and never.operator_owned and never.fix == ""
    (unused,) = [f for f in found if f.rule == "unused-class"]
    assert unused.operator_owned is None and unused.fix
    # The user's findings come first, whatever the rules' order.
    assert found[-1] is never
