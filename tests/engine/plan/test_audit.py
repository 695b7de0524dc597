"""The audit as a whole: the rule list and its order, the findings' order and JSON, the
fixes' YAML, and the demo cluster (the planning example of the Kubernetes docs)."""

from __future__ import annotations

import json
from typing import Any

import yaml
from hypothesis import given
from hypothesis import strategies as st

from clusters.demo import demo_objects
from scheduling.engine import load_cluster
from scheduling.engine.plan import RULE_IDS, RULES, audit, plan_ladder
from scheduling.engine.plan.fixes import to_yaml

from ..builders import make_node, make_pdb, make_pod, make_priority_class


def test_the_rules_and_their_order() -> None:
    assert RULE_IDS == (
        "no-global-default",
        "global-default-not-lowest",
        "class-in-reserved-range",
        "priority-drift",
        "missing-class",
        "critical-app-without-pdb",
        "pdb-never-allows",
        "pdb-matches-nothing",
        "pdb-empty-selector",
        "affinity-to-lower-priority",
        "long-grace-low-priority",
        "besteffort-high-priority",
        "daemonset-below-neighbours",
        "preemption-disabled",
        "pods-without-profile",
        "device-class-held-by-lower",
        "equal-priority-block",
        "never-preempting-class",
        "unused-class",
        "high-class-without-quota",
        "rwop-held-by-lower-priority",
        "stateful-zone-without-room",
    )
    for rule in RULES:
        assert rule.severity in ("error", "warning", "info")
        # One sentence, citing a source by name.
        assert rule.why.endswith(".") and rule.why[0].isupper()
        assert any(
            source in rule.why
            for source in (
                "planning guide",
                "Pod Priority and Preemption",
                "pod-preemption.md",
                "pod-priority-api.md",
                "Configure Multiple Schedulers",
            )
        ), rule.id


def _messy() -> list[dict[str, Any]]:
    return [
        make_priority_class("mid", 500),
        make_priority_class("b-unused", 7),
        make_priority_class("a-unused", 9),
        make_priority_class("huge", 1_200_000_000),
        make_node("n1").obj(),
        make_pod("p").node("n1").priority_class("mid").label("app", "p").obj(),
        make_pod("q").node("n1").priority_class("ghost").priority(3).obj(),
        make_pdb("z-typo", match_labels={"app": "nope"}),
        make_pdb("a-typo", match_labels={"app": "none"}),
    ]


def test_findings_come_in_rule_order_then_by_objects() -> None:
    found = audit(load_cluster(_messy()))
    keys = [(f.rule, f.objects) for f in found]
    assert keys == [
        ("no-global-default", ()),
        ("class-in-reserved-range", ("PriorityClass huge",)),
        ("missing-class", ("PriorityClass ghost", "Pod default/q")),
        ("pdb-matches-nothing", ("PodDisruptionBudget default/a-typo",)),
        ("pdb-matches-nothing", ("PodDisruptionBudget default/z-typo",)),
        ("unused-class", ("PriorityClass a-unused",)),
        ("unused-class", ("PriorityClass b-unused",)),
        ("unused-class", ("PriorityClass huge",)),
    ]


def test_findings_are_plain_json_and_their_fixes_yaml() -> None:
    for f in audit(load_cluster(_messy())):
        data = f.to_dict()
        assert json.loads(json.dumps(data)) == data
        assert set(data) == {
            "rule",
            "severity",
            "message",
            "objects",
            "why",
            "fix",
            "operator_owned",
        }
        assert isinstance(data["objects"], list)
        # Every fix parses, comments and all.
        list(yaml.safe_load_all(f.fix))


def test_the_demo_plan() -> None:
    """The demo: cat-1 (10,000) is the globalDefault and the lowest, cat-2 (20,000) above
    it, both with budgets on every app; cat-3 (30,000) is defined for the pod the demo
    asks about and used by none; cluster-service (1,000,000) runs the ingress
    controller alone, with no budget; system pods run kube-proxy and CoreDNS."""
    cluster = load_cluster(demo_objects())
    found = audit(cluster)
    assert [(f.rule, f.objects) for f in found] == [
        # The top user tier in use is cluster-service, and its one app has no budget.
        (
            "critical-app-without-pdb",
            ("ReplicaSet ingress-nginx/ingress-nginx-controller-7c6974c4d8",),
        ),
        ("unused-class", ("PriorityClass cat-3",)),
    ]
    # Marking cat-2 critical: green and red both have budgets, so nothing is missing.
    assert [f.rule for f in audit(cluster, critical_classes=["cat-2"])] == ["unused-class"]

    ladder = plan_ladder(cluster)
    cat1 = ladder.rung("cat-1")
    assert cat1.global_default and cat1.value == 10_000
    # blue and purple: 4 replicas each of 1 cpu, 2 GiB; each with a budget allowing 1.
    assert (cat1.pods, cat1.apps, cat1.cpu_millis, cat1.memory_bytes) == (8, 2, 8000, 16 * 2**30)
    assert (cat1.budgets.apps_covered, cat1.budgets.pods_covered) == (2, 8)
    assert cat1.budgets.blocking_pdbs == ()
    # Five nodes of 3500m allocatable.
    assert ladder.allocatable_cpu_millis == 17_500 and cat1.cpu_share == 8000 / 17_500
    assert ladder.rung("system-node-critical").pods == 5
    assert ladder.unclassed == () and ladder.missing == ()


_scalars = st.one_of(
    st.text(max_size=12),
    st.integers(-(2**40), 2**40),
    st.booleans(),
    st.sampled_from(
        [
            "yes",
            "No",
            "null",
            "~",
            "1e3",
            "0x1F",
            "1.5",
            "a: b",
            "a #b",
            "-",
            "<x>",
            "<<",
            " x",
            "x ",
            "a\u2028b",
            "\U0001f600",
        ]
    ),
)
_documents = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(st.dictionaries(st.text(max_size=8), _documents, min_size=1, max_size=5))
def test_fix_yaml_reads_back_as_written(document: dict[str, Any]) -> None:
    assert yaml.safe_load(to_yaml(document)) == document
