"""preemptlab whatif --advise: the advice after the answer, in each format; each
advised patch applied to the Pod file and asked again through whatif itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from scheduling.engine import read_documents
from tests.engine.advice.rfc6902 import apply_patch

from .conftest import DEMO, POD

CONTRACT_KEYS = ["kind", "change", "outcome", "node", "victims", "pdbs_exceeded", "proof"]


def _pod() -> dict[str, Any]:
    pod: dict[str, Any] = read_documents(POD.read_bytes(), POD.name)[0]
    return pod


def _ask(run_cli: Any, tmp_path: Path, pod: dict[str, Any], name: str) -> dict[str, Any]:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(pod))
    r = run_cli("whatif", str(DEMO), "-f", str(path), "--format", "json")
    assert r.returncode == 0, r.stderr.decode()
    answer: dict[str, Any] = json.loads(r.stdout)
    return answer


def test_json_carries_the_contract_and_each_patch_is_proven_by_whatif(
    run_cli: Any, tmp_path: Path
) -> None:
    r = run_cli("whatif", str(DEMO), "-f", str(POD), "--advise", "--format", "json")
    assert r.returncode == 0, r.stderr.decode()
    body = json.loads(r.stdout)
    assert body["outcome"] == "preempts"
    advice = body["advice"]
    assert [list(item) for item in advice] == [CONTRACT_KEYS] * len(advice)
    patched = [i for i in advice if "patch" in i["change"] and i["kind"] == "smaller-request"]
    assert patched
    for item in patched:
        after = _ask(run_cli, tmp_path, apply_patch(_pod(), item["change"]["patch"]), "after")
        assert (after["outcome"], after["victims"]) == (item["outcome"], item["victims"])
        assert after["outcome"] == "fits" and after["victims"] == []
        less = item["proof"]["one_step_less"]
        before = _ask(run_cli, tmp_path, apply_patch(_pod(), less["change"]["patch"]), "less")
        assert before["outcome"] == "preempts" and before["victims"] == less["victims"]
    kinds = {i["kind"] for i in advice}
    assert {"smaller-request", "add-nodes"} <= kinds


def test_markdown_says_how_to_pass_the_gate(run_cli: Any) -> None:
    r = run_cli(
        "whatif", str(DEMO), "-f", str(POD), "--advise", "--format", "markdown", "--fail-on-preempt"
    )
    assert r.returncode == 1  # the gate still fails the job
    out = r.stdout.decode()
    assert "### How to avoid it" in out
    line = next(x for x in out.splitlines() if x.startswith("To pass the gate, "))
    assert "request at most " in line and ", or add 1 node like node-" in line
    assert line.endswith(".")


def test_text_lists_each_change_with_its_proof(run_cli: Any) -> None:
    r = run_cli("whatif", str(DEMO), "-f", str(POD), "--advise")
    assert r.returncode == 0, r.stderr.decode()
    out = r.stdout.decode()
    advice = out[out.index("How to avoid it") :]
    assert "  - request at most " in advice
    assert "one step less: preempts, evicts 1 pod" in advice
    assert "  - add 1 node like node-" in advice


def test_nothing_to_avoid(run_cli: Any, tmp_path: Path) -> None:
    pod = _pod()
    pod["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "100m", "memory": "64Mi"}
    path = tmp_path / "small.json"
    path.write_text(json.dumps(pod))
    r = run_cli("whatif", str(DEMO), "-f", str(path), "--advise", "--format", "json")
    assert json.loads(r.stdout)["advice"] == []
    r = run_cli("whatif", str(DEMO), "-f", str(path), "--advise")
    assert "How to avoid it: nothing to avoid" in r.stdout.decode()


def test_advise_is_not_for_capacity(run_cli: Any) -> None:
    r = run_cli("whatif", str(DEMO), "-f", str(POD), "--capacity", "5", "--advise")
    assert r.returncode == 2
    assert "--capacity does not take --advise" in r.stderr.decode()


def test_a_budget_to_create_is_printed_as_yaml_to_apply(run_cli: Any) -> None:
    r = run_cli("whatif", str(DEMO), "-f", str(POD), "--advise", "--format", "json")
    (protect,) = [i for i in json.loads(r.stdout)["advice"] if i["kind"] == "protect"]
    (budget,) = protect["change"]["create"]
    r = run_cli("whatif", str(DEMO), "-f", str(POD), "--advise", "--format", "markdown")
    out = r.stdout.decode()
    block = out[out.index("  ```yaml\n") + len("  ```yaml\n") :]
    block = block[: block.index("  ```")]
    assert yaml.safe_load("\n".join(x[2:] for x in block.splitlines())) == budget
    assert budget["kind"] == "PodDisruptionBudget" and budget["spec"]["maxUnavailable"] == 0
