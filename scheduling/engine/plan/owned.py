"""Objects the platform's operators own: an edit to one of them is reverted.

A managed platform runs operators that keep the objects they own at the spec they
hold: on OpenShift the Cluster Version Operator and the operators it installs own
every object of the platform's namespaces (``openshift`` and ``openshift-*``, which a
user cannot request as a project), OLM owns what it installs from a catalog, and the
addon manager of GKE, AKS and kubeadm-built clusters restores the add-ons labelled
``addonmanager.kubernetes.io/mode: Reconcile``. An audit fix that edits such an
object lasts until the next reconcile: the finding says who owns it instead.

The snapshot keeps of a pod its namespace, its labels and its controlling owner's kind,
so these mark it (first found, most specific first):

- its controlling owner is no built-in controller (a custom resource: an operator's
  controller made the pod, e.g. OLM's ``CatalogSource``);
- ``app.kubernetes.io/managed-by`` names an operator (``prometheus-operator``);
- the addon manager's ``Reconcile`` mode, or AKS's ``kubernetes.azure.com/managedby``;
- a label in an operator's own domain (a prefix with an ``operator`` or ``operators``
  part: ``dns.operator.openshift.io/daemonset-dns``, ``operator.prometheus.io/name``,
  ``operators.coreos.com/...``) or OLM's (``olm.*``);
- the namespace, on OpenShift's platform namespaces.

An app is marked by its pods; a PodDisruptionBudget or a Namespace by the namespace.
PriorityClasses and scheduler profiles are the cluster administrator's.
"""

from __future__ import annotations

from ..objects import Pod
from .index import PlanIndex

# Controllers of the Kubernetes API itself (a Node owns a static pod's mirror).
BUILTIN_CONTROLLERS = frozenset(
    {
        "ReplicaSet",
        "ReplicationController",
        "StatefulSet",
        "DaemonSet",
        "Job",
        "CronJob",
        "Deployment",
        "Node",
    }
)
PLATFORM_NAMESPACE = "openshift"
MANAGED_BY = "app.kubernetes.io/managed-by"
# Labels whose value says an add-on manager restores the object.
RECONCILED = {
    "addonmanager.kubernetes.io/mode": "Reconcile",
    "kubernetes.azure.com/managedby": "aks",
}
OPERATOR_DOMAIN_PARTS = frozenset({"operator", "operators"})

# What a finding says instead of its fix.
OWNED_ADVICE = (
    "an edit here is reverted; raise it with the platform vendor or configure the operator"
)


def platform_namespace(namespace: str) -> bool:
    return namespace == PLATFORM_NAMESPACE or namespace.startswith(PLATFORM_NAMESPACE + "-")


def _operator_label(key: str) -> bool:
    """A label of OLM's (``olm.catalogSource``, ``olm.owner``) or in an operator's domain
    (``dns.operator.openshift.io/...``; a name without a domain says nothing)."""
    prefix, slash, _ = key.partition("/")
    parts = prefix.split(".")
    return parts[0] == "olm" or bool(slash and OPERATOR_DOMAIN_PARTS.intersection(parts))


def pod_marks(pod: Pod) -> list[str]:
    """What marks ``pod`` as an operator's, most specific first (empty: nothing does)."""
    marks: list[str] = []
    if pod.owner:
        kind, _, name = pod.owner.partition("/")
        if kind not in BUILTIN_CONTROLLERS:
            marks.append(f"made by the controller of {kind} {name}, a custom resource")
    labels = pod.labels
    managed_by = labels.get(MANAGED_BY, "")
    if managed_by.lower().endswith("operator"):
        marks.append(f"label {MANAGED_BY}={managed_by}")
    for key, value in RECONCILED.items():
        if labels.get(key) == value:
            marks.append(f"label {key}={value}")
    operator_keys = sorted(k for k in labels if _operator_label(k))
    if operator_keys:
        marks.append(f"label {operator_keys[0]}")
    marks += namespace_marks(pod.namespace)
    return marks


def namespace_marks(namespace: str) -> list[str]:
    if platform_namespace(namespace):
        return [f"namespace {namespace}, one of OpenShift's platform namespaces (openshift-*)"]
    return []


def _namespace_of(ref: str) -> str | None:
    kind, _, rest = ref.partition(" ")
    if kind == "Namespace":
        return rest
    namespace, slash, _ = rest.partition("/")
    return namespace if slash else None


def object_marks(index: PlanIndex, ref: str) -> list[str]:
    """What marks the object ``ref`` ("Kind namespace/name") as an operator's."""
    app = index.apps.get(ref)
    if app is not None and app.pods:
        return pod_marks(app.pods[0])
    namespace = _namespace_of(ref)
    return namespace_marks(namespace) if namespace is not None else []


def operator_owned(index: PlanIndex, objects: tuple[str, ...]) -> str | None:
    """The sentence a finding about ``objects`` carries when its first object, the one
    its fix edits, is an operator's; None when it is the user's to change."""
    if not objects:
        return None
    marks = object_marks(index, objects[0])
    if not marks:
        return None
    return f"Owned by the cluster's operators ({'; '.join(marks)}): {OWNED_ADVICE}."
