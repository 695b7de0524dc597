"""Label and name checks remember what they found valid: what they remember must never
let an invalid label, namespace or template label through."""

from __future__ import annotations

from clusters import kube_names


def test_invalid_labels_are_refused_after_valid_ones_were_remembered() -> None:
    kube_names._VALID_LABELS.clear()
    assert kube_names.labels_problem({"app": "web"}) is None
    assert kube_names.labels_problem({"app": "web"}) is None
    problem = kube_names.labels_problem({"app": "web", "tier": "web!"})
    assert problem is not None and "is not a label value" in problem
    problem = kube_names.labels_problem({"app": "web!"})
    assert problem is not None and "is not a label value" in problem
    # Not strings: left for the engine, which names the field and the type.
    assert kube_names.labels_problem({"app": ["web"]}) is None
    assert kube_names.labels_problem({"app": 1}) is None


def test_metadata_is_checked_the_same_the_second_time() -> None:
    kube_names._VALID_LABELS.clear()
    pod = {
        "kind": "Pod",
        "metadata": {"name": "web-1", "namespace": "team-a", "labels": {"a": "b"}},
    }
    assert kube_names.metadata_problem(pod) is None
    assert kube_names.metadata_problem(pod) is None
    bad_namespace = {"kind": "Pod", "metadata": {"name": "web-1", "namespace": "Team-A"}}
    for _ in range(2):
        problem = kube_names.metadata_problem(bad_namespace)
        assert problem is not None and problem[0] == "metadata.namespace"
    workload = {
        "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"a": "b"}},
        "spec": {"template": {"metadata": {"labels": {"a": "b", "c": "-"}}}},
    }
    problem = kube_names.metadata_problem(workload)
    assert problem is not None and problem[0] == "spec.template.metadata.labels"
