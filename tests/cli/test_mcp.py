"""preemptlab mcp answered through the MCP SDK's own client over stdio."""

from __future__ import annotations

import json
import os
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from scheduling.engine import analyze, read_documents
from tests.verdict import without_verdict

from .conftest import DEMO, POD, ROOT, user_env


def _ask(
    tmp: Path, calls: list[tuple[str, dict[str, Any]]], *args: str, **env: str
) -> tuple[list[str], list[Any]]:
    async def session() -> tuple[list[str], list[Any]]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "preemptlab", "mcp", *args],
            cwd=ROOT,
            env=user_env(tmp, **env),
        )
        # A tool that hangs (a named pipe read) fails the test instead of stalling it.
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                names = [t.name for t in (await s.list_tools()).tools]
                return names, [await s.call_tool(name, args) for name, args in calls]

    # A thread of its own: the browser tests' Playwright keeps an event loop running in
    # this one for the whole session.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, session).result()


def test_an_agent_asks_a_whatif_and_reads_a_snapshot(tmp_path: Path) -> None:
    manifest = POD.read_text()
    names, (whatif, summary, too_big, plan, typo) = _ask(
        tmp_path,
        [
            ("whatif", {"manifest": manifest, "snapshot_path": str(DEMO)}),
            ("snapshot_summary", {"snapshot_path": str(DEMO)}),
            ("whatif", {"manifest": "#" * (2 * 2**20), "snapshot_path": str(DEMO)}),
            ("plan", {"snapshot_path": str(DEMO), "critical_classes": ["cat-1"]}),
            ("plan", {"snapshot_path": str(DEMO), "critical_classes": ["cat-9"]}),
        ],
    )
    assert sorted(names) == ["drain", "plan", "snapshot_summary", "whatif"]
    objects = json.loads(DEMO.read_text())["items"]
    expected = json.loads(
        json.dumps(analyze(objects, read_documents(POD.read_bytes(), POD.name)[0]).to_dict())
    )
    assert not whatif.is_error
    assert without_verdict(json.loads(whatif.content[0].text)) == expected
    held = json.loads(summary.content[0].text)
    assert held["objects"]["Node"] == sum(o["kind"] == "Node" for o in objects)
    assert any(c["name"] == "cat-1" for c in held["priority_classes"])
    assert too_big.is_error and "limit" in too_big.content[0].text
    # The demo's cat-1 (the default, 10000) runs blue and purple, 4 pods each.
    ladder = {c["name"]: c for c in json.loads(plan.content[0].text)["ladder"]}
    assert ladder["cat-1"]["pods"] == 8 and ladder["cat-1"]["global_default"]
    assert json.loads(plan.content[0].text)["critical_classes"] == ["cat-1"]
    assert typo.is_error and "cat-9" in typo.content[0].text


def test_snapshot_files_are_read_only_as_regular_files_under_the_root(tmp_path: Path) -> None:
    root = tmp_path / "snapshots"
    (root / "sub").mkdir(parents=True)
    shutil.copy(DEMO, root / "sub" / "demo.json")
    (root / "inside.json").symlink_to(root / "sub" / "demo.json")
    (root / "passwd.json").symlink_to("/etc/passwd")
    (root / "zero.json").symlink_to("/dev/zero")
    os.mkfifo(root / "pipe.json")
    paths = [
        "sub/demo.json",
        str(root / "inside.json"),
        "/etc/passwd",
        "../" * 8 + "etc/passwd",
        "passwd.json",
        "zero.json",
        "/dev/zero",
        "pipe.json",
        str(DEMO),  # readable, but outside this root
    ]
    _, answers = _ask(
        tmp_path,
        [("snapshot_summary", {"snapshot_path": p}) for p in paths]
        + [("plan", {"snapshot_path": "/etc/passwd"})],
        "--root",
        str(root),
    )
    demo, inside, *refused = answers
    nodes = sum(o["kind"] == "Node" for o in json.loads(DEMO.read_text())["items"])
    assert json.loads(demo.content[0].text)["objects"]["Node"] == nodes
    assert json.loads(inside.content[0].text)["objects"]["Node"] == nodes
    said = [a.content[0].text for a in refused]
    assert all(a.is_error for a in refused), said
    assert all("outside" in t for t in said[:5] + said[6:]), said
    assert "not a regular file" in said[5], said  # the pipe, refused at once
    assert "root:" not in "".join(said)  # nothing of /etc/passwd told back


def test_the_size_limit_counts_what_is_read_not_what_stat_says(tmp_path: Path) -> None:
    # /proc files stat as 0 bytes and hold more: the limit still stops the read.
    _, (maps,) = _ask(
        tmp_path,
        [("snapshot_summary", {"snapshot_path": "/proc/self/maps"})],
        PREEMPTLAB_MCP_ROOT="/proc",
        PREEMPTLAB_MCP_MAX_SNAPSHOT_BYTES="100",
    )
    assert Path("/proc/self/maps").stat().st_size == 0
    assert maps.is_error and "above the 0 MiB" in maps.content[0].text


def test_an_agent_asks_what_draining_a_node_does(tmp_path: Path) -> None:
    from scheduling.engine.take_nodes_away import TakeNodesAway, take_nodes_away
    from tests.clusters.builders import dump
    from tests.scheduling.nodes_away_scenario import nodes_away_objects

    snap = tmp_path / "three-nodes.json"
    snap.write_bytes(dump(nodes_away_objects()))
    names, (drained, typo) = _ask(
        tmp_path,
        [
            ("drain", {"snapshot_path": str(snap), "nodes": ["node-1"], "force": True}),
            ("drain", {"snapshot_path": str(snap), "nodes": ["node-9"]}),
        ],
        "--root",
        str(tmp_path),
    )
    assert "drain" in names
    assert not drained.is_error, drained.content
    answer = json.loads(drained.content[0].text)
    expected = take_nodes_away(
        nodes_away_objects(), TakeNodesAway.from_dict({"nodes": ["node-1"], "force": True})
    ).to_dict()
    assert answer == json.loads(json.dumps(expected))
    assert answer["verdict"] == "completes"
    assert typo.is_error and "node-9" in typo.content[0].text
