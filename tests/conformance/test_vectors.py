"""Every conformance vector: the real kube-scheduler's answer vs the engine's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scheduling.engine import analyze

VECTORS = sorted((Path(__file__).parent / "vectors").glob("*.json"))


def _check(vector: dict[str, Any]) -> list[str]:
    exp = vector["expected"]
    result = analyze(vector["snapshot"], vector["preemptor"])
    got = result.to_dict()
    details = result.details()
    problems: list[str] = []

    def expect(what: str, ours: Any, theirs: Any) -> None:
        if ours != theirs:
            problems.append(f"{what}: engine {ours!r} != scheduler {theirs!r}")

    expect("outcome", got["outcome"], exp["outcome"])
    expect("feasible_nodes", got["feasible_nodes"], exp["feasibleNodes"])
    if exp["outcome"] == "fits":
        if exp.get("hostSelection") == "nominated-node":
            expect("node (nominated)", got["node"], exp["preemptor"].get("nominatedNodeName"))
        elif "topScoredNodes" in exp and got["node"] not in exp["topScoredNodes"]:
            problems.append(f"node {got['node']} not in topScoredNodes {exp['topScoredNodes']}")
        _check_scores(
            exp, got, details, expect, bool(vector["preemptor"]["spec"].get("resourceClaims"))
        )
    else:
        pre = exp["preemption"]
        expect("eligible", got["eligible"], pre["eligible"])
        ours = {c["node"]: c for c in got["candidates"]}
        theirs = {c["node"]: c for c in pre["candidates"]}
        expect("candidate nodes", sorted(ours), sorted(theirs))
        for node in sorted(set(ours) & set(theirs)):
            victims = [f"{v['namespace']}/{v['name']}" for v in theirs[node]["victims"]]
            expect(f"{node} victims", ours[node]["victims"], victims)
            expect(
                f"{node} pdb_violations",
                ours[node]["pdb_violations"],
                theirs[node]["numPDBViolations"],
            )
        if pre["tieSet"] and got["node"] not in pre["tieSet"]:
            problems.append(f"node {got['node']} not in tieSet {pre['tieSet']}")
        expect("tied_nodes", sorted(got["tied_nodes"]), pre["tieSet"])
        expect("message", got["message"], exp["fitError"])
    rejected = {r["node"]: r["reasons"] for r in got["rejected_nodes"]}
    statuses = details["node_statuses"]
    for node, st in exp.get("nodes", {}).items():
        if "filter" in st:
            expect(
                f"{node} reasons", sorted(rejected.get(node, [])), sorted(st["filter"]["reasons"])
            )
            ours_filter = (statuses.get(node) or {}).get("filter") or {}
            expect(f"{node} filter code", ours_filter.get("code"), st["filter"]["code"])
            expect(
                f"{node} filter plugin",
                ours_filter.get("plugin") or "",
                st["filter"].get("plugin") or "",
            )
        if st.get("preemption"):
            ours_pre = (statuses.get(node) or {}).get("preemption") or {}
            expect(f"{node} preemption code", ours_pre.get("code"), st["preemption"]["code"])
            expect(
                f"{node} preemption reasons",
                sorted(ours_pre.get("reasons") or []),
                sorted(st["preemption"].get("reasons") or []),
            )
    return problems


def _check_scores(
    exp: dict[str, Any],
    got: dict[str, Any],
    details: dict[str, Any],
    expect: Any,
    claims: bool = False,
) -> None:
    """The second figure of a "fits" answer: the real scores, plugin by plugin."""
    if "scores" in exp:
        expect("total scores", details["totals"], exp["scores"])
        if exp.get("hostSelection", "scored") == "scored":
            expect("tied_nodes", sorted(got["tied_nodes"]), exp["topScoredNodes"])
        expect("top scored nodes", sorted(details["top_scored_nodes"]), exp["topScoredNodes"])
    if "hostSelection" in exp:
        expect("host selection", details["host_selection"], exp["hostSelection"])
    for node, plugins in exp.get("pluginScores", {}).items():
        # DynamicResources scores 0 for a pod without claims, which the engine leaves
        # out of its table (its PreScore skips the plugin); a pod with claims keeps it.
        theirs = {
            name: score for name, score in plugins.items() if claims or name != "DynamicResources"
        }
        expect(f"{node} plugin scores", details["scores"].get(node), theirs)


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_vector(path: Path) -> None:
    vector = json.loads(path.read_text())
    problems = _check(vector)
    assert not problems, "\n".join(problems)
