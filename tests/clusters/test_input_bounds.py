"""Input that once answered 500 or left a snapshot "ingesting": every one is refused at
once with a 400 naming the file, the object and the field, and nothing is kept."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from clusters import models
from tests.clusters.builders import dump, make_node, make_pod, make_priority_class


def _upload(client: Any, name: str, data: bytes) -> Any:
    return client.post("/snapshots/new/", {"files": [SimpleUploadedFile(name, data)]})


def _refused(response: Any, *words: str) -> str:
    body = response.content.decode()
    assert response.status_code == 400, body[:2000]
    for word in words:
        assert word in body, (word, body[:3000])
    assert not models.Snapshot.objects.exists()
    return body


POD_YAML = """\
apiVersion: v1
kind: Node
metadata: {{name: node-a}}
status: {{allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}}}
---
apiVersion: v1
kind: Pod
metadata: {{name: web-1, namespace: shop}}
spec:
  nodeName: node-a
  containers: [{{name: main, resources: {{requests: {{cpu: {cpu}}}}}}}]
"""


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf", "!!float 1e309"])
def test_a_non_finite_number_in_yaml_is_refused_naming_where(owner_client: Any, value: str) -> None:
    body = _refused(
        _upload(owner_client, "pods.yaml", POD_YAML.format(cpu=value).encode()),
        "pods.yaml",
        "Pod shop/web-1",
    )
    assert "spec.containers[0].resources.requests.cpu" in body


def test_a_non_finite_number_anywhere_in_an_object_is_refused(owner_client: Any) -> None:
    text = (
        POD_YAML.format(cpu="100m")
        + "  tolerations: [{operator: Exists, tolerationSeconds: .inf}]\n"
    )
    body = _refused(
        _upload(owner_client, "pods.yaml", text.encode()), "pods.yaml", "Pod shop/web-1"
    )
    assert "spec.tolerations[0].tolerationSeconds" in body and "not a finite number" in body


def test_a_quantity_of_thousands_of_digits_is_read_as_kubernetes_reads_it(
    owner_client: Any,
) -> None:
    # ParseQuantity reads any length exactly and rounds up to 1n: this is 1 millicore.
    pod = make_pod("web-1", namespace="shop", cpu="0." + "0" * 5000 + "1")
    response = _upload(owner_client, "pods.json", dump([make_node(), pod]))
    assert response.status_code == 302, response.content.decode()[:2000]
    assert models.Pod.objects.get(name="web-1").requests["cpu"] == 1


def test_a_quantity_beyond_64_bits_in_millicores_is_refused_naming_it(owner_client: Any) -> None:
    # The quantity saturates at 2^63-1 cores; in millicores it is beyond what any column holds.
    pod = make_pod("web-1", namespace="shop", cpu="9" * 5001)
    _refused(
        _upload(owner_client, "pods.json", dump([make_node(), pod])),
        "Pod shop/web-1",
        "spec.containers[*].resources.requests.cpu",
        "beyond the 64-bit range",
    )


def test_requests_that_overflow_the_nodes_sum_are_refused_naming_it(owner_client: Any) -> None:
    # Each pod's request fits its column; their sum on the node does not.
    pods = [make_pod(f"web-{i}", namespace="shop", memory=f"{2**62}") for i in range(3)]
    _refused(
        _upload(owner_client, "pods.json", dump([make_node(), *pods])),
        "Node node-a",
        "beyond the 64-bit range",
    )


def test_a_json_number_beyond_a_double_is_refused(owner_client: Any) -> None:
    data = dump([make_node(), make_pod("web-1", namespace="shop")]).replace(
        b'"cpu": "500m"', b'"cpu": 1e309'
    )
    assert b"1e309" in data
    _refused(_upload(owner_client, "pods.json", data), "pods.json", "infinity")


@pytest.mark.parametrize("value", [2**31, -(2**31) - 1, 2**40])
def test_a_priority_beyond_32_bits_is_refused(owner_client: Any, value: int) -> None:
    body = _refused(
        _upload(
            owner_client, "classes.json", dump([make_node(), make_priority_class("huge", value)])
        ),
        "classes.json",
        "PriorityClass huge",
    )
    assert "value" in body


def test_a_pod_priority_beyond_32_bits_is_refused(owner_client: Any) -> None:
    pod = make_pod("web-1", namespace="shop")
    pod["spec"]["priority"] = 2**33
    _refused(
        _upload(owner_client, "pods.json", dump([make_node(), pod])),
        "pods.json",
        "Pod shop/web-1",
        "spec.priority",
    )


def test_disruptions_allowed_beyond_32_bits_is_refused(owner_client: Any) -> None:
    pdb = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
        "status": {"disruptionsAllowed": 2**40, "currentHealthy": 1, "desiredHealthy": 1},
    }
    _refused(
        _upload(owner_client, "pdbs.json", dump([make_node(), make_pod(), pdb])),
        "pdbs.json",
        "PodDisruptionBudget shop/web",
        "status.disruptionsAllowed",
    )


def test_a_negative_quantity_is_refused(owner_client: Any) -> None:
    pod = make_pod("web-1", namespace="shop", cpu="-2")
    _refused(
        _upload(owner_client, "pods.json", dump([make_node(), pod])),
        "pods.json",
        "Pod shop/web-1",
        "spec.containers[0].resources.requests.cpu",
    )


def test_a_pdb_count_beyond_its_32_bit_column_is_refused_on_every_database(
    owner_client: Any,
) -> None:
    # SQLite would store it; PostgreSQL's integer column would not: both refuse it alike.
    pdb = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
        "status": {"disruptionsAllowed": 0, "currentHealthy": 2**40, "desiredHealthy": 1},
    }
    _refused(
        _upload(owner_client, "pdbs.json", dump([make_node(), make_pod(), pdb])),
        "PodDisruptionBudget shop/web",
        "32-bit",
    )


def test_an_unexpected_error_fails_the_ingest_at_once_with_a_reference(
    owner_client: Any, monkeypatch: Any, caplog: Any
) -> None:
    """A defect the input provokes ends the try now, in the product's words: no 500, no
    snapshot left "ingesting", the exception's text only in the log under the reference."""
    from clusters.ingest import rows

    def broken(cluster: Any) -> Any:
        raise ValueError("internal detail: column cpu_requested of table clusters_node")

    monkeypatch.setattr(rows, "compute_bands", broken)
    body = _refused(
        _upload(owner_client, "pods.json", dump([make_node(), make_pod()])), "reference"
    )
    assert "internal detail" not in body and "ValueError" not in body
    (reference,) = re.findall(r"reference ([0-9a-f]{8})", body)
    assert any(reference in r.getMessage() and r.exc_info for r in caplog.records)


def test_an_upload_whose_aliases_expand_tenfold_is_refused_before_it_is_built(
    owner_client: Any,
) -> None:
    # 100 KB of YAML that would be 100 MB stored: an alias counts what it expands to.
    note = "x" * 100_000
    aliases = ",".join(["*note"] * 1000)
    text = (
        POD_YAML.format(cpu="100m").replace(
            "metadata: {name: web-1, namespace: shop}",
            f"metadata: {{name: web-1, namespace: shop, annotations: {{a: &note {note}}}}}",
        )
        + f"  args: [{aliases}]\n"
    )
    body = _refused(_upload(owner_client, "pods.yaml", text.encode()), "pods.yaml")
    # Ten times the file's size: about 1 MB, not the 100 MB the aliases would build.
    (limit,) = re.findall(r"expand it to more than ([0-9,]+) bytes", body)
    assert int(limit.replace(",", "")) == 10 * len(text.encode())
