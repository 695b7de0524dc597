"""The alert's signature: HMAC-SHA256 of "<timestamp>.<body>" with the cluster's secret,
and the README's three lines of Python verify it; the alert rules read as written."""

from __future__ import annotations

import hashlib
import hmac
import re
from pathlib import Path

import pytest

from connected.alert_rules import (
    DEFAULT_RULES,
    AlertRule,
    RuleInvalid,
    RuleKind,
    critical_floor,
    parse_rule,
    rules_of,
)
from connected.signing import SIGNATURE_HEADER, TIMESTAMP_HEADER, signed_headers, verify

ROOT = Path(__file__).resolve().parents[2]


def readme_verification() -> str:
    """The Python block of the README's Alerts section."""
    section = (ROOT / "README.md").read_text().split("\n### Alerts\n", 1)[1].split("\n### ", 1)[0]
    (block,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    return block


def test_the_readme_verifies_a_signed_body_in_three_lines_and_refuses_a_forged_one() -> None:
    code = readme_verification()
    assert len([line for line in code.splitlines() if line.strip()]) == 3
    secret, body = "the-cluster-secret-0123456789", b'{"text": "[prod] x", "url": "https://p/"}'
    headers = signed_headers(secret, body, now=1_700_000_000)
    assert headers[TIMESTAMP_HEADER] == "1700000000"
    expected = hmac.new(secret.encode(), b"1700000000." + body, hashlib.sha256).hexdigest()
    assert headers[SIGNATURE_HEADER] == f"sha256={expected}"
    given = {
        "SECRET": secret,
        "timestamp": headers[TIMESTAMP_HEADER],
        "body": body,
        "signature": headers[SIGNATURE_HEADER],
    }
    exec(code, dict(given))  # passes
    for forged in ({"body": body + b" "}, {"SECRET": "another"}, {"timestamp": "1700000001"}):
        with pytest.raises(AssertionError):
            exec(code, {**given, **forged})
    assert verify(secret, headers[TIMESTAMP_HEADER], body, headers[SIGNATURE_HEADER],
                  now=1_700_000_100)  # fmt: skip
    # Too old: a replay is refused.
    assert not verify(secret, headers[TIMESTAMP_HEADER], body, headers[SIGNATURE_HEADER],
                      now=1_700_000_000 + 301)  # fmt: skip


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("preemption", AlertRule(RuleKind.PREEMPTION)),
        ("preemption>=1000000000", AlertRule(RuleKind.PREEMPTION, priority=10**9)),
        (" preemption >= -5 ", AlertRule(RuleKind.PREEMPTION, priority=-5)),
        ("pdb-at-zero", AlertRule(RuleKind.PDB_AT_ZERO)),
        ("finding", AlertRule(RuleKind.FINDING, severity="error")),
        ("finding>=info", AlertRule(RuleKind.FINDING, severity="info")),
        ("unreadable", AlertRule(RuleKind.UNREADABLE, after_seconds=3600)),
        ("unreadable>=90s", AlertRule(RuleKind.UNREADABLE, after_seconds=90)),
    ],
)
def test_a_rule_reads_as_written_and_is_written_back_the_same(text: str, rule: AlertRule) -> None:
    assert parse_rule(text) == rule
    assert parse_rule(str(rule)) == rule


@pytest.mark.parametrize("text", ["", "preempt", "pdb-at-zero>=1", "preemption>=1e9", "x>=1"])
def test_a_rule_that_is_none_says_what_to_write(text: str) -> None:
    with pytest.raises(RuleInvalid, match=r"preemption|pdb-at-zero|priority|integer"):
        parse_rule(text)


def test_the_defaults_and_the_critical_floor() -> None:
    assert [str(r) for r in rules_of(None)] == list(DEFAULT_RULES)
    assert rules_of([]) == []
    classes = {"system-cluster-critical": 2 * 10**9, "openshift-user-critical": 10**9, "x": 5}
    assert critical_floor(classes) == 10**9
    assert critical_floor({"x": 5, "y": 9}) is None  # none marked: every preemption
    assert critical_floor({"x": 5, "y": 9}, named=["y"]) == 9


def test_a_stored_rule_that_reads_as_none_is_left_out_not_fatal() -> None:
    assert [str(r) for r in rules_of(["pdb-at-zero", "nonsense", "pdb-at-zero"])] == ["pdb-at-zero"]
