from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from clusters import models
from tests.clusters.builders import dump, make_node, make_pod


def test_it_imports_several_files(owner: Any, tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "nodes.json").write_bytes(dump([make_node()]))
    (tmp_path / "pods.json").write_bytes(dump([make_pod("a"), make_pod("b")]))
    call_command(
        "import_snapshot",
        str(tmp_path / "nodes.json"),
        str(tmp_path / "pods.json"),
        "--name",
        "prod",
        "--owner",
        "owner",
    )
    snapshot = models.Snapshot.objects.get(owner=owner, name="prod")
    assert (snapshot.node_count, snapshot.pod_count) == (1, 2)
    out = capsys.readouterr().out
    assert f"Snapshot {snapshot.pk}" in out and "ready" in out


def test_it_reports_invalid_input_as_a_command_error(owner: Any, tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_bytes(dump([make_pod("a", memory="lots")]))
    with pytest.raises(
        CommandError,
        match=r"bad.json: items\[0\] Pod default/a: spec.containers\[0\].resources.requests.memory",
    ):
        call_command("import_snapshot", str(tmp_path / "bad.json"), "--owner", "owner")
    assert not models.Snapshot.objects.exists()


def test_it_refuses_an_unknown_owner(db: Any, tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(dump([make_node()]))
    with pytest.raises(CommandError, match="No user named 'nobody'"):
        call_command("import_snapshot", str(tmp_path / "a.json"), "--owner", "nobody")


def test_it_prints_the_scrub_report(owner: Any, tmp_path: Path, capsys: Any) -> None:
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "s"},
        "data": {"k": "dg=="},
    }
    pod = make_pod("a", env=[{"name": "TOKEN", "value": "hunter2"}])
    (tmp_path / "a.json").write_bytes(dump([make_node(), pod, secret]))
    call_command("import_snapshot", str(tmp_path / "a.json"), "--owner", "owner")
    out = capsys.readouterr().out
    assert (
        "Removed on ingest: 1 Secret objects dropped; 1 environment variable values removed." in out
    )
    assert "hunter2" not in out
