"""preemptlab mcp: the what-if, the priority plan and snapshot reading as tools of a
Model Context Protocol server over stdio, for agents. Read-only: it reads snapshot
files under one folder (SnapshotRoot) and, through kubectl, the current context; it
writes nothing but its temporary files and stores nothing. The
answers are the JSON of ``preemptlab whatif --format json``, ``preemptlab drain --format
json`` and ``preemptlab plan --format json``."""

from __future__ import annotations

import functools
import io
import json
import os
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from preemptlab.snapshot_root import SnapshotRoot

# The stated size limits: a snapshot file and a manifest an agent may hand over.
MAX_SNAPSHOT_BYTES = int(os.environ.get("PREEMPTLAB_MCP_MAX_SNAPSHOT_BYTES", 512 * 2**20))
MAX_MANIFEST_BYTES = 1 * 2**20

# Where snapshot files are read from: set by run() (--root, PREEMPTLAB_MCP_ROOT, or the
# folder it was started in).
ROOT = SnapshotRoot.at(os.curdir, MAX_SNAPSHOT_BYTES)

INSTRUCTIONS = (
    "Ask what kube-scheduler would do with a pending Pod or a workload (Deployment, "
    "ReplicaSet, StatefulSet, Job) on a cluster snapshot file or the current kubectl "
    "context: the node, the pods it would preempt, the PodDisruptionBudgets it breaks and "
    f"why. Snapshot files up to {MAX_SNAPSHOT_BYTES // 2**20} MiB, manifests up to "
    f"{MAX_MANIFEST_BYTES // 2**10} KiB; `snapshot_path` is a regular file under the "
    "folder this server was started for (relative paths from there). Nothing is written "
    "anywhere."
)


def _snapshot_files(snapshot_path: str | None, work: Path) -> list[str]:
    """The snapshot to read, as files in ``work``: a copy of the file given, read under
    the server's root within the limit (the commands then read only the copy), or the
    current kubectl context (its volume and device objects where it allows)."""
    from preemptlab.kube import Kubectl

    if snapshot_path:
        copy = work / f"snapshot-{Path(snapshot_path).name}"
        copy.write_bytes(ROOT.read(snapshot_path))
        return [str(copy)]
    return [str(path) for path in Kubectl().read_snapshot(work, quiet=True).paths]


def whatif_json(
    manifest: str,
    snapshot_path: str | None = None,
    recreate_victims: bool = False,
    timeline: bool = False,
) -> dict[str, Any]:
    """The contract of manage.py whatif --format json for ``manifest`` (YAML or JSON)."""
    from django.core.management import call_command

    if len(manifest.encode()) > MAX_MANIFEST_BYTES:
        raise ValueError(f"the manifest is above the {MAX_MANIFEST_BYTES // 2**10} KiB limit")
    with tempfile.TemporaryDirectory(prefix="preemptlab-mcp-") as tmp:
        work = Path(tmp)
        snapshots = _snapshot_files(snapshot_path, work)
        pod = work / "manifest.yaml"
        pod.write_text(manifest)
        flags = ["--recreate-victims"] * recreate_victims + ["--timeline"] * timeline
        out = io.StringIO()
        call_command("whatif", *snapshots, str(pod), "--format", "json", *flags, stdout=out)
    answer: dict[str, Any] = json.loads(out.getvalue())
    return answer


def drain_json(
    snapshot_path: str | None = None,
    nodes: list[str] | None = None,
    selector: str | None = None,
    zone: str | None = None,
    how: str = "drain",
    force: bool = False,
    max_unavailable: int | None = None,
    add_nodes: int | None = None,
    like: str | None = None,
) -> dict[str, Any]:
    """What happens when nodes go away: the JSON of manage.py drain --format json."""
    from django.core.management import call_command

    flags = ["--how", how] + ["--force"] * force
    for flag, value in (
        ("--nodes", ",".join(nodes or [])),
        ("--selector", selector),
        ("--zone", zone),
        ("--max-unavailable", max_unavailable),
        ("--add-nodes", add_nodes),
        ("--like", like),
    ):
        if value not in (None, ""):
            flags += [flag, str(value)]
    with tempfile.TemporaryDirectory(prefix="preemptlab-mcp-") as tmp:
        snapshots = _snapshot_files(snapshot_path, Path(tmp))
        out = io.StringIO()
        call_command("drain", *snapshots, "--format", "json", *flags, stdout=out)
    answer: dict[str, Any] = json.loads(out.getvalue())
    return answer


def plan_json(
    snapshot_path: str | None = None, critical_classes: list[str] | None = None
) -> dict[str, Any]:
    """The priority plan of manage.py plan --format json: the ladder and the audit."""
    from django.core.management import call_command

    with tempfile.TemporaryDirectory(prefix="preemptlab-mcp-") as tmp:
        snapshots = _snapshot_files(snapshot_path, Path(tmp))
        critical = ["--critical", ",".join(critical_classes)] if critical_classes else []
        out = io.StringIO()
        call_command(
            "plan", *snapshots, "--format", "json", "--fail-on", "never", *critical, stdout=out
        )
    answer: dict[str, Any] = json.loads(out.getvalue())
    return answer


def snapshot_summary(snapshot_path: str | None = None) -> dict[str, Any]:
    """What a snapshot holds: counts by kind, the PriorityClasses by value, the nodes."""
    from scheduling.engine import load_cluster, read_documents

    with tempfile.TemporaryDirectory(prefix="preemptlab-mcp-") as tmp:
        objects = [
            obj
            for path in map(Path, _snapshot_files(snapshot_path, Path(tmp)))
            for obj in read_documents(path.read_bytes(), path.name)
        ]
    kinds = Counter(str(o.get("kind")) for o in objects if isinstance(o, dict))
    cluster = load_cluster(objects)
    classes = sorted(cluster.resolver.by_name.values(), key=lambda c: -c.value)
    return {
        "objects": dict(sorted(kinds.items())),
        "priority_classes": [
            {"name": c.name, "value": c.value, "global_default": c.global_default} for c in classes
        ],
        "nodes": [ni.name for ni in cluster.node_infos],
    }


def _said(fn: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """The tool, its refusals told to the agent (bad input, limits, kubectl)."""
    from django.core.management.base import CommandError
    from mcp.server.mcpserver.exceptions import ToolError

    from preemptlab.kube import KubeError
    from scheduling.engine import InvalidInput

    @functools.wraps(fn)
    def tool(*args: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            return fn(*args, **kwargs)
        except (ValueError, OSError, CommandError, KubeError, InvalidInput) as e:
            raise ToolError(str(e)) from e

    return tool


def run(root: str | None = None) -> None:
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    from preemptlab.runtime import setup_django

    global ROOT
    ROOT = SnapshotRoot.at(
        root or os.environ.get("PREEMPTLAB_MCP_ROOT") or os.getcwd(), MAX_SNAPSHOT_BYTES
    )
    setup_django()
    server: MCPServer[Any] = MCPServer(name="preemptlab", instructions=INSTRUCTIONS)
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
    server.tool(
        name="whatif",
        description="What kube-scheduler would do with the Pod or workload in `manifest` "
        "(YAML or JSON) on the snapshot file at `snapshot_path` (json, yaml or .gz), or on "
        "the current kubectl context when it is omitted: the result contract (pod) or the "
        "workload contract, as `preemptlab whatif --format json` prints it. PriorityClass "
        "documents in `manifest` are tried for this what-if only (new classes, or new values "
        "for the snapshot's), listed in the answer's `hypothetical_classes`.",
        annotations=read_only,
    )(_said(whatif_json))
    server.tool(
        name="plan",
        description="The priority plan of the snapshot file at `snapshot_path` (or the "
        "current kubectl context): every PriorityClass with what uses it, and the audit's "
        "findings (rule id, severity, objects, why, a YAML fix), as `preemptlab plan --format "
        "json` prints it. `critical_classes`: classes whose apps should all have a "
        "PodDisruptionBudget (default: the highest user class that pods use).",
        annotations=read_only,
    )(_said(plan_json))
    server.tool(
        name="drain",
        description="What happens when nodes go away, on the snapshot file at "
        "`snapshot_path` (or the current kubectl context): give `nodes` (names), `selector` "
        "(a pool, k=v,...) or `zone`; `how` drain (as kubectl drain: evictions through the "
        "PodDisruptionBudgets, bare pods only with `force`) or lost; `max_unavailable`; "
        "`add_nodes` new nodes `like` a node. The answer, as `preemptlab drain --format json` "
        "prints it: verdict (completes|blocked|stopped), sentence, per node evicted/deleted/"
        "left/blocked, where every returning pod runs or why it stays pending, preemptions.",
        annotations=read_only,
    )(_said(drain_json))
    server.tool(
        name="snapshot_summary",
        description="What a snapshot holds (or the current kubectl context when "
        "`snapshot_path` is omitted): objects by kind, PriorityClasses by value, the nodes.",
        annotations=read_only,
    )(_said(snapshot_summary))
    server.run("stdio")
