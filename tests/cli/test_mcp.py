"""preemptlab mcp answered through the MCP SDK's own client over stdio."""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from scheduling.engine import analyze, read_documents

from .conftest import DEMO, POD, ROOT, user_env


def _ask(tmp: Path, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[str], list[Any]]:
    async def session() -> tuple[list[str], list[Any]]:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "preemptlab", "mcp"], cwd=ROOT, env=user_env(tmp)
        )
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
    assert sorted(names) == ["plan", "snapshot_summary", "whatif"]
    objects = json.loads(DEMO.read_text())["items"]
    expected = json.loads(
        json.dumps(analyze(objects, read_documents(POD.read_bytes(), POD.name)[0]).to_dict())
    )
    assert not whatif.is_error
    assert json.loads(whatif.content[0].text) == expected
    held = json.loads(summary.content[0].text)
    assert held["objects"]["Node"] == sum(o["kind"] == "Node" for o in objects)
    assert any(c["name"] == "cat-1" for c in held["priority_classes"])
    assert too_big.is_error and "limit" in too_big.content[0].text
    # The demo's cat-1 (the default, 10000) runs blue and purple, 4 pods each.
    ladder = {c["name"]: c for c in json.loads(plan.content[0].text)["ladder"]}
    assert ladder["cat-1"]["pods"] == 8 and ladder["cat-1"]["global_default"]
    assert json.loads(plan.content[0].text)["critical_classes"] == ["cat-1"]
    assert typo.is_error and "cat-9" in typo.content[0].text
