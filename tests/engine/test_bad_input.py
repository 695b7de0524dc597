"""Malformed input is reported with its location, never as a traceback."""

from __future__ import annotations

import time

import pytest

from scheduling.engine import InvalidInput, analyze, load_cluster, read_documents

from .builders import as_list, make_node, make_pod, make_priority_class


def test_invalid_quantity_names_item_kind_object_and_field() -> None:
    pods = [make_pod(f"web-{i}").obj() for i in range(13)]
    pods[12]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "abc"
    with pytest.raises(InvalidInput) as e:
        load_cluster(as_list(*pods), source="snap.json")
    err = e.value
    assert (err.source, err.index, err.kind, err.namespace, err.name) == (
        "snap.json",
        12,
        "Pod",
        "default",
        "web-12",
    )
    assert err.field == "spec.containers[0].resources.requests.cpu"
    assert (
        str(err)
        == 'snap.json: items[12] Pod default/web-12: spec.containers[0].resources.requests.cpu: invalid quantity "abc"'
    )


def test_unknown_priority_class_on_the_pending_pod() -> None:
    with pytest.raises(InvalidInput) as e:
        analyze(as_list(make_node("n1").obj()), make_pod("p").priority_class("nope").obj())
    assert e.value.field == "spec.priorityClassName"
    assert "nope" in str(e.value)


def test_invalid_label_selector_operator() -> None:
    pdb = {
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "b", "namespace": "ns"},
        "spec": {"selector": {"matchExpressions": [{"key": "a", "operator": "Like"}]}},
    }
    with pytest.raises(InvalidInput) as e:
        load_cluster([pdb])
    assert e.value.kind == "PodDisruptionBudget" and e.value.name == "b"
    assert e.value.field == "spec.selector.matchExpressions[0].operator"


def test_object_without_kind_or_name() -> None:
    with pytest.raises(InvalidInput) as e:
        load_cluster([{"metadata": {"name": "x"}}])
    assert e.value.field == "kind"
    with pytest.raises(InvalidInput) as e:
        load_cluster([{"kind": "Node", "metadata": {}}])
    assert e.value.field == "metadata.name" and e.value.index == 0


def test_other_kinds_are_skipped_and_counted() -> None:
    cluster = load_cluster(
        [
            {"kind": "Service", "metadata": {"name": "s"}},
            {"kind": "Service", "metadata": {"name": "t"}},
        ]
    )
    assert cluster.skipped == {"Service": 2}


def test_priority_class_warnings() -> None:
    cluster = load_cluster(
        as_list(
            make_priority_class("a", 10, global_default=True),
            make_priority_class("b", 20, global_default=True),
            make_priority_class("huge", 2_000_000_000),
            make_priority_class("system-mine", 5),
        )
    )
    text = " | ".join(cluster.warnings)
    assert "more than one globalDefault" in text
    assert "huge" in text and "system-mine" in text


def test_a_missing_global_default_warns_only_when_a_pod_lacks_a_priority() -> None:
    with_priorities = [
        {"kind": "Pod", "metadata": {"name": "a"}, "spec": {"priority": 5, "containers": []}},
        {
            "kind": "Pod",
            "metadata": {"name": "b"},
            "spec": {"priorityClassName": "gold", "containers": []},
        },
        make_priority_class("gold", 100),
    ]
    assert not any("globalDefault" in w for w in load_cluster(with_priorities).warnings)
    bare = {"kind": "Pod", "metadata": {"name": "c"}, "spec": {"containers": []}}
    warnings = load_cluster([*with_priorities, bare]).warnings
    assert (
        "no globalDefault PriorityClass: 1 pod without a priority or a class gets priority 0"
        in warnings
    )


def test_global_default_lowest_value_applies() -> None:
    cluster = load_cluster(
        as_list(
            make_priority_class("a", 10, global_default=True),
            make_priority_class("b", 20, global_default=True),
        )
    )
    result = analyze(cluster, make_pod("p").obj())
    assert (result.priority, result.priority_class) == (10, "a")


def test_read_documents_yaml_multi_document_and_lists() -> None:
    data = b"kind: Node\nmetadata: {name: a}\n---\nkind: List\nitems:\n- kind: Node\n  metadata: {name: b}\n"
    assert [d["metadata"]["name"] for d in read_documents(data, "x.yaml")] == ["a", "b"]


def test_read_documents_json() -> None:
    assert read_documents(b'{"kind":"List","items":[{"kind":"Node"}]}', "x.json") == [
        {"kind": "Node"}
    ]


def test_billion_laughs_is_refused_fast() -> None:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        refs = ",".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    start = time.monotonic()
    with pytest.raises(InvalidInput):
        read_documents("\n".join(lines).encode(), "bomb.yaml")
    assert time.monotonic() - start < 2


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(InvalidInput):
        read_documents(b"[" * 100_000 + b"]" * 100_000, "deep.json")
    with pytest.raises(InvalidInput):
        read_documents(b"a: " + b"[" * 5000 + b"]" * 5000, "deep.yaml")


def test_unsafe_yaml_tags_are_refused() -> None:
    with pytest.raises(InvalidInput):
        read_documents(b"!!python/object/apply:os.system ['true']\n", "evil.yaml")


def test_yaml_syntax_error_names_the_line() -> None:
    with pytest.raises(InvalidInput) as e:
        read_documents(b"kind: Node\nmetadata: {name: a\n", "bad.yaml")
    assert "bad.yaml" in str(e.value) and "line" in str(e.value)


def _aliased_string(size: int, repeats: int) -> bytes:
    """One anchored string of ``size`` bytes and ``repeats`` aliases of it: few nodes,
    but size * repeats bytes once expanded (the billion-laughs of long strings)."""
    lines = [f"a: &big {'x' * size}", "b: [" + ",".join(["*big"] * repeats) + "]"]
    return "\n".join(lines).encode()


def test_aliases_of_a_long_string_count_by_the_bytes_they_expand_to() -> None:
    data = _aliased_string(100_000, 100)  # 100 KB that would become 10 MB
    with pytest.raises(InvalidInput, match="expand it to more than 1,048,576 bytes"):
        read_documents(data, "bomb.yaml")


def test_the_callers_limit_bounds_the_expansion_further() -> None:
    data = _aliased_string(1_000, 50)  # 50 KB expanded: within 1 MiB, beyond 20,000
    assert read_documents(data, "ok.yaml")
    with pytest.raises(InvalidInput, match="more than 20,000 bytes"):
        read_documents(data, "small.yaml", max_bytes=20_000)


def test_a_few_small_aliases_as_people_write_them_are_read() -> None:
    data = b"""\
defaults: &defaults {cpu: 100m, memory: 64Mi}
kind: Pod
metadata: {name: a}
spec:
  containers:
  - {name: a, resources: {requests: *defaults, limits: *defaults}}
  - {name: b, resources: {requests: *defaults}}
"""
    (pod,) = read_documents(data, "pod.yaml")
    assert pod["spec"]["containers"][1]["resources"]["requests"] == {
        "cpu": "100m",
        "memory": "64Mi",
    }


def test_a_gzipped_file_reads_as_its_contents() -> None:
    import gzip

    data = gzip.compress(b'{"kind":"List","items":[{"kind":"Node","metadata":{"name":"a"}}]}')
    assert read_documents(data, "nodes.json.gz") == [{"kind": "Node", "metadata": {"name": "a"}}]


def test_a_gzip_file_cut_short_or_too_large_is_refused() -> None:
    import gzip

    whole = gzip.compress(b"kind: Node\nmetadata: {name: a}\n" * 1000)
    with pytest.raises(InvalidInput, match="cut short"):
        read_documents(whole[:40], "cut.yaml.gz")
    with pytest.raises(InvalidInput, match="more than 1,000 bytes uncompressed"):
        read_documents(whole, "big.yaml.gz", max_bytes=1000)
