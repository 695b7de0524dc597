"""Workload input: controllers expanded into the pods they would create."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling.engine import InvalidInput, load_cluster
from scheduling.engine.workload import (
    TooManyReplicas,
    admit,
    expand_workload,
    workload_objects,
)

SUFFIX = r"[bcdfghjklmnpqrstvwxz2456789]{5}"


def template(labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"labels": labels if labels is not None else {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "x"}], **spec},
    }


def controller(
    kind: str, name: str = "web", replicas: int | None = 3, **spec: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {"template": template(), **spec}
    if kind in ("Deployment", "ReplicaSet", "StatefulSet"):
        body.setdefault("selector", {"matchLabels": {"app": "web"}})
        if replicas is not None:
            body["replicas"] = replicas
    api = "batch/v1" if kind == "Job" else "apps/v1"
    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": {"name": name, "namespace": "shop"},
        "spec": body,
    }


def names(objects: list[Any]) -> list[str]:
    return [p["metadata"]["name"] for p in expand_workload(objects).pods]


def test_it_names_a_deployments_pods_after_its_replica_set() -> None:
    w = expand_workload([controller("Deployment")])
    (obj,) = w.objects
    assert re.fullmatch(r"web-[bcdfghjklmnpqrstvwxz2456789]+", obj.replica_set)
    pod_hash = obj.replica_set.removeprefix("web-")
    for p in w.pods:
        meta = p["metadata"]
        assert re.fullmatch(re.escape(obj.replica_set) + "-" + SUFFIX, meta["name"])
        assert meta["namespace"] == "shop"
        assert meta["labels"] == {"app": "web", "pod-template-hash": pod_hash}
        (ref,) = meta["ownerReferences"]
        assert (ref["kind"], ref["name"], ref["controller"]) == (
            "ReplicaSet",
            obj.replica_set,
            True,
        )
        assert p["status"] == {"phase": "Pending"}
    assert len(w.pods) == 3


def test_a_replica_sets_pods_are_owned_by_it() -> None:
    w = expand_workload([controller("ReplicaSet", name="rs")])
    assert all(re.fullmatch("rs-" + SUFFIX, n) for n in [p["metadata"]["name"] for p in w.pods])
    assert {p["metadata"]["ownerReferences"][0]["kind"] for p in w.pods} == {"ReplicaSet"}
    assert "pod-template-hash" not in w.pods[0]["metadata"]["labels"]


def test_a_stateful_set_numbers_its_pods_in_order() -> None:
    w = expand_workload([controller("StatefulSet", name="db", serviceName="db")])
    assert [p["metadata"]["name"] for p in w.pods] == ["db-0", "db-1", "db-2"]
    labels = w.pods[2]["metadata"]["labels"]
    assert labels["statefulset.kubernetes.io/pod-name"] == "db-2"
    assert labels["apps.kubernetes.io/pod-index"] == "2"
    assert labels["controller-revision-hash"].startswith("db-")
    assert w.pods[2]["spec"]["hostname"] == "db-2"
    assert w.pods[2]["spec"]["subdomain"] == "db"


@pytest.mark.parametrize(
    ("parallelism", "completions", "expected"),
    [(None, None, 1), (4, None, 4), (5, 2, 2), (2, 10, 2)],
)
def test_a_job_starts_parallelism_pods_capped_by_completions(
    parallelism: int | None, completions: int | None, expected: int
) -> None:
    spec: dict[str, Any] = {}
    if parallelism is not None:
        spec["parallelism"] = parallelism
    if completions is not None:
        spec["completions"] = completions
    w = expand_workload([controller("Job", name="batch", replicas=None, **spec)])
    assert len(w.pods) == expected
    meta = w.pods[0]["metadata"]
    assert re.fullmatch("batch-" + SUFFIX, meta["name"])
    assert meta["labels"]["batch.kubernetes.io/job-name"] == "batch"
    assert meta["labels"]["job-name"] == "batch"
    assert meta["ownerReferences"][0]["kind"] == "Job"


def test_documents_and_list_items_keep_their_order() -> None:
    docs = [
        {"kind": "List", "items": [controller("StatefulSet", name="a", replicas=2)]},
        None,
        controller("StatefulSet", name="b", replicas=1),
        {"kind": "Pod", "metadata": {"name": "solo"}, "spec": {"containers": [{"name": "c"}]}},
    ]
    w = expand_workload(workload_objects(docs))
    assert w.pod_keys == ["shop/a-0", "shop/a-1", "shop/b-0", "default/solo"]
    assert [o.kind for o in w.objects] == ["StatefulSet", "StatefulSet", "Pod"]


@pytest.mark.parametrize(
    ("obj", "field", "words"),
    [
        (controller("Deployment", replicas=0), "spec.replicas", "at least 1 replica"),
        (controller("Job", replicas=None, parallelism=0), "spec.parallelism", "no pods"),
        (
            {
                **controller("Deployment"),
                "spec": {
                    **controller("Deployment")["spec"],
                    "template": {
                        "metadata": {"labels": {"app": "web"}},
                        "spec": {"containers": []},
                    },
                },
            },
            "spec.template.spec.containers",
            "no containers",
        ),
        (
            controller("Deployment", selector={"matchLabels": {"app": "other"}}),
            "spec.template.metadata.labels",
            "`selector` does not match template `labels`",
        ),
        (controller("ReplicaSet", selector={}), "spec.selector", "empty selector"),
        ({"kind": "CronJob", "metadata": {"name": "x"}}, "spec", "Required value"),
        (controller("Deployment", replicas=-1), "spec.replicas", "greater than or equal to 0"),
    ],
)
def test_it_refuses_what_the_api_server_would(obj: dict[str, Any], field: str, words: str) -> None:
    with pytest.raises(InvalidInput) as e:
        expand_workload([obj])
    assert e.value.field == field
    assert words in str(e.value)


def test_more_replicas_than_the_limit_are_refused_with_the_count() -> None:
    with pytest.raises(TooManyReplicas) as e:
        expand_workload(
            [controller("Deployment", replicas=6), controller("StatefulSet", replicas=5)],
            max_replicas=10,
        )
    assert (e.value.count, e.value.limit) == (11, 10)
    assert "11 pods; at most 10" in str(e.value)


def test_admission_writes_the_class_priority_and_refuses_an_unknown_class() -> None:
    classes = load_cluster(
        [
            {
                "kind": "PriorityClass",
                "metadata": {"name": "high"},
                "value": 5000,
                "preemptionPolicy": "Never",
            }
        ]
    )
    dep = controller("Deployment", replicas=2)
    dep["spec"]["template"]["spec"]["priorityClassName"] = "high"
    w = expand_workload([dep])
    admit(w, classes.resolver)
    assert {(p["spec"]["priority"], p["spec"]["preemptionPolicy"]) for p in w.pods} == {
        (5000, "Never")
    }
    dep["spec"]["template"]["spec"]["priorityClassName"] = "nope"
    w = expand_workload([dep])
    with pytest.raises(InvalidInput) as e:
        admit(w, classes.resolver)
    assert "no PriorityClass with name nope was found" in str(e.value)
    assert "Deployment shop/web" in str(e.value)
    assert e.value.field == "spec.template.spec.priorityClassName"


kinds = st.sampled_from(["Deployment", "ReplicaSet", "StatefulSet", "Job"])
object_specs = st.lists(
    st.tuples(kinds, st.sampled_from(["web", "api", "db"]), st.integers(1, 40)),
    min_size=1,
    max_size=5,
    unique_by=lambda t: (t[0], t[1]),
)


def _objects(specs: list[tuple[str, str, int]]) -> list[dict[str, Any]]:
    out = []
    for kind, name, n in specs:
        if kind == "Job":
            out.append(controller(kind, name=name, replicas=None, parallelism=n))
        else:
            out.append(controller(kind, name=f"{name}-{kind.lower()}", replicas=n))
    return out


@settings(max_examples=60, deadline=None)
@given(object_specs)
def test_names_are_unique_deterministic_and_counted(specs: list[tuple[str, str, int]]) -> None:
    objects = _objects(specs)
    first = expand_workload(objects)
    again = expand_workload(_objects(specs))
    keys = first.pod_keys
    assert keys == again.pod_keys  # deterministic
    assert len(keys) == len(set(keys))  # unique
    assert len(keys) == sum(n for _, _, n in specs)  # one pod a replica
    # Replicas follow their documents' order.
    assert [k for o in first.objects for k in o.pod_keys] == keys
    assert [o.replicas for o in first.objects] == [n for _, _, n in specs]


@settings(max_examples=30, deadline=None)
@given(
    st.integers(1, 300),
    st.sets(st.text("bcdfghjklmnpqrstvwxz2456789", min_size=5, max_size=5), max_size=20),
)
def test_generated_names_avoid_taken_ones(n: int, taken_suffixes: set[str]) -> None:
    rs = controller("ReplicaSet", name="rs", replicas=n)
    taken = {f"shop/rs-{s}" for s in taken_suffixes}
    keys = expand_workload([rs], taken=taken).pod_keys
    assert not taken & set(keys)
    assert len(set(keys)) == n
