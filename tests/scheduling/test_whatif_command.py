import json
from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

VECTOR = (
    Path(__file__).parents[1]
    / "conformance"
    / "vectors"
    / "0001-handwritten-a-single-node-10cpu.json"
)


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    vector = json.loads(VECTOR.read_text())
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps(vector["snapshot"]))
    pod = tmp_path / "pod.yaml"
    pod.write_text(yaml.safe_dump(vector["preemptor"]))
    return snap, pod


def test_it_prints_the_contract_as_json(files: tuple[Path, Path]) -> None:
    out = StringIO()
    call_command("whatif", str(files[0]), str(files[1]), "--format", "json", stdout=out)
    result = json.loads(out.getvalue())
    assert result["outcome"] == "preempts"
    assert result["victims"] == ["default/pod-prio2"]


def test_it_prints_a_readable_report(files: tuple[Path, Path]) -> None:
    out = StringIO()
    call_command("whatif", str(files[0]), str(files[1]), stdout=out)
    text = out.getvalue()
    assert text.startswith("default/pending-prio10 (priority 10): Preempts 1 pod on node-1.\n")
    assert "It evicts default/pod-prio2 (no PodDisruptionBudget covers them)" in text
    assert "\n  default/pod-prio2  priority 2 (" in text
    assert "Event FailedScheduling: 0/1 nodes are available: 1 Insufficient cpu." in text


def test_it_reports_bad_input_without_traceback(files: tuple[Path, Path], tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "kind": "List",
                "items": [
                    {
                        "kind": "Node",
                        "metadata": {"name": "n"},
                        "status": {"allocatable": {"cpu": "x"}},
                    }
                ],
            }
        )
    )
    with pytest.raises(
        CommandError,
        match=r'bad.json: items\[0\] Node n: status.allocatable.cpu: invalid quantity "x"',
    ):
        call_command("whatif", str(bad), str(files[1]))
