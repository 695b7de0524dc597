"""The verdict a stored or printed result carries beside its contract (what the CLI's
gates judge), checked against the contract it sits in and taken off, so a test can
compare the rest with the engine's own answer."""

from __future__ import annotations

from typing import Any


def without_verdict(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` without its ``verdict``, once the verdict agrees with the contract."""
    rest = dict(result)
    verdict = rest.pop("verdict")
    if "pods" in rest:  # a workload's run
        pending = {p["pod"] for p in rest["pods"] if p["final"] == "pending"}
        assert set(verdict["pending"]) <= pending
        assert set(verdict["unschedulable"]) <= set(verdict["pending"])
        assert set(verdict["victims"]) == set(rest["deleted_victims"])
    else:  # one pod
        preempts = rest["outcome"] == "preempts"
        assert verdict["victims"] == (rest["victims"] if preempts else [])
        stuck = [rest["pod"]] if rest["outcome"] == "unschedulable" else []
        assert verdict["pending"] == stuck == verdict["unschedulable"]
    assert verdict["preempts"] is bool(verdict["victims"])
    return rest
