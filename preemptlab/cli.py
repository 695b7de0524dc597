"""preemptlab (and kubectl preemptlab): what-ifs on files or the current cluster.

    preemptlab whatif [SNAPSHOT...] -f MANIFEST [-f ...] [whatif options]
    preemptlab plan [SNAPSHOT...] [--format F] [--critical CLASS,...] [--fail-on S]
                    [--first-in-line [--size CPU,MEMORY] [--limit N]]
    preemptlab drain [SNAPSHOT...] (--nodes A,B | --selector K=V,... | --zone Z) [drain options]
    preemptlab snapshot [-o FILE] [--namespace NS] [--selector K=V,...]
    preemptlab push SNAPSHOT... --server URL [--token-file FILE] [--name NAME]
    preemptlab serve [--port N]
    preemptlab mcp [--root DIR]

No server and no database for whatif, plan, drain, snapshot and mcp: the engine and the same
reports as the pages and ``manage.py whatif`` (whose code answers here too).
SNAPSHOT is a file (json, yaml, .gz) or "-" for standard input; without one, the
current kubectl context is read (--context, --kubeconfig passed on to kubectl).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from preemptlab import package_version
from preemptlab.kube import Kubectl, KubeError
from preemptlab.runtime import setup_django

# Exit statuses, as manage.py whatif's: a gate tripped, the input could not be read.
GATE_FAILED = 1
BAD_INPUT = 2

# manage.py whatif's options, passed on as given: (flag, takes a value, help); "append":
# a value, and the option may be given again.
WHATIF_OPTIONS = (
    ("--format", True, "text (default), json or markdown"),
    ("--recreate-victims", False, "workloads: victims come back as new pending pods"),
    ("--timeline", False, "workloads: keep time (grace periods, arrivals)"),
    ("--fail-on-preempt", False, "exit 1 when any pod would be preempted"),
    ("--fail-on-victim-priority-above", True, "exit 1 when a victim's priority is above N"),
    ("--fail-on-pdb-violation", False, "exit 1 when a PodDisruptionBudget would break"),
    ("--protect", True, "exit 1 when a victim has one of these classes (CLASS,...)"),
    ("--fail-on-pending", False, "exit 1 when the pod or any replica is not running at the end"),
    ("--fail-on-unschedulable", False, "exit 1 when a pod cannot be scheduled, even by preempting"),
    ("--min-candidate-nodes-percentage", True, "DefaultPreemptionArgs (default 10)"),
    ("--min-candidate-nodes-absolute", True, "DefaultPreemptionArgs (default 100)"),
    ("--preemption-offset", True, "answer as the real dry run from this offset"),
    ("--priority-class", "append", "a class for this what-if only, NAME=VALUE (repeatable)"),
    ("--capacity", True, "how many replicas of the Pod fit, trying up to N"),
    ("--advise", False, "the smallest single changes that avoid the evictions, each proven"),
    ("--scheduler-config", True, "the what-if's own KubeSchedulerConfiguration file"),
    ("--scheduler-preset", True, "a preset scheduler configuration by name"),
)


# manage.py drain's options, passed on as given (as WHATIF_OPTIONS).
DRAIN_OPTIONS = (
    ("--nodes", True, "the nodes taken away, by name (A,B,...)"),
    ("--selector", True, "or the nodes whose labels match (a pool: K=V,...)"),
    ("--zone", True, "or every node of this topology.kubernetes.io/zone"),
    ("--how", True, "drain (default, as kubectl drain) or lost (the nodes fail)"),
    ("--force", False, "delete pods no controller recreates (else the drain stops there)"),
    ("--max-unavailable", True, "nodes drained at once (default 1: one after another)"),
    ("--add-nodes", True, "N new nodes ready before the drain (with --like)"),
    ("--like", True, "the node the added nodes copy"),
    ("--format", True, "text (default), json or markdown"),
    ("--fail-on-preempt", False, "exit 1 when a returning pod preempts any pod"),
    ("--protect", True, "exit 1 when a victim has one of these classes (CLASS,...)"),
    ("--fail-on-pending", False, "exit 1 when a returning pod stays pending"),
    ("--fail-on-blocked", False, "exit 1 when the drain does not complete (PDB, no --force)"),
    ("--fail-on-pdb-violation", False, "exit 1 when a preemption exceeds a PDB"),
    ("--scheduler-config", True, "the run's own KubeSchedulerConfiguration file"),
    ("--scheduler-preset", True, "a preset scheduler configuration by name"),
)


def _cluster_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--context", help="the kubectl context to read (default: the current one)")
    p.add_argument("--kubeconfig", help="the kubeconfig file kubectl reads")
    p.add_argument("--kubectl", default="kubectl", help="the kubectl to run (default: kubectl)")


def invoked_as() -> str:
    """The command's name as the user typed it: kubectl runs a plugin found on PATH as
    kubectl-preemptlab, which the user typed as "kubectl preemptlab"."""
    if Path(sys.argv[0]).name == "kubectl-preemptlab":
        return "kubectl preemptlab"
    return "preemptlab"


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog=invoked_as(),
        description="What kube-scheduler would do with a pod or a workload: the node, the "
        "victims, the PodDisruptionBudgets it breaks, and why. On snapshot files or the "
        "current kubectl context; no server needed.",
    )
    top.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    sub = top.add_subparsers(dest="command", required=True)
    w = sub.add_parser(
        "whatif",
        help="analyze a pod or a workload",
        description="Where kube-scheduler would put the manifest's Pod or workload, whom "
        "it would preempt and why. Options (--format text|json|markdown, --recreate-victims, --timeline, --fail-on-preempt, "
        "--fail-on-victim-priority-above N, --fail-on-pdb-violation, --protect CLASS,..., "
        "--fail-on-pending, --fail-on-unschedulable, "
        "--min-candidate-nodes-percentage P, --min-candidate-nodes-absolute N, "
        "--preemption-offset N, --priority-class NAME=VALUE, --capacity N, --advise). PriorityClass documents in the "
        "manifest are the what-if's own classes, for that run only. Exit status 0, 1 when a gate trips, 2 on bad input.",
    )
    w.add_argument("snapshot", nargs="*", help="snapshot files, or - (default: the live cluster)")
    for flag, takes_value, text in WHATIF_OPTIONS:
        if takes_value == "append":
            w.add_argument(flag, action="append", default=[], help=text)
        elif takes_value:
            w.add_argument(flag, help=text)
        else:
            w.add_argument(flag, action="store_true", help=text)
    w.add_argument(
        "-f",
        "--filename",
        action="append",
        required=True,
        metavar="MANIFEST",
        help="the Pod or workload manifest (repeatable; - for standard input)",
    )
    _cluster_args(w)
    d = sub.add_parser(
        "drain",
        help="what if nodes are drained or lost",
        description="What happens when nodes are drained (as kubectl drain: cordon, "
        "evictions through the PodDisruptionBudgets, DaemonSet pods stay, bare pods only "
        "with --force) or lost: where every evicted pod returns, whom it preempts, which "
        "PDB blocks. Exit status 0, 1 when a gate trips (--fail-on-preempt, --protect, "
        "--fail-on-pending, --fail-on-blocked, --fail-on-pdb-violation), 2 on bad input.",
    )
    d.add_argument("snapshot", nargs="*", help="snapshot files, or - (default: the live cluster)")
    for flag, takes_value, text in DRAIN_OPTIONS:
        if takes_value:
            d.add_argument(flag, help=text)
        else:
            d.add_argument(flag, action="store_true", help=text)
    _cluster_args(d)
    p = sub.add_parser(
        "plan",
        help="audit the PriorityClass ladder",
        description="The PriorityClass plan: every PriorityClass and what uses it, and the "
        "audit of the planning rules, each finding with its rule id, why and a YAML fix. Exit "
        "status 0, 1 when a finding is as serious as --fail-on (default error), 2 on bad input.",
    )
    p.add_argument("snapshot", nargs="*", help="snapshot files, or - (default: the live cluster)")
    p.add_argument("--format", default="text", help="text (default), json or markdown")
    p.add_argument(
        "--critical", action="append", default=[], help="classes whose apps need a PDB (CLASS,...)"
    )
    p.add_argument("--fail-on", default="error", help="error (default), warning, info or never")
    p.add_argument(
        "--first-in-line",
        action="store_true",
        help="rank the apps by how soon preemption reaches them",
    )
    p.add_argument("--size", default="1,2Gi", help="the probe's CPU,MEMORY (default 1,2Gi)")
    p.add_argument("--limit", default="50", help="probes per priority level (default 50)")
    p.add_argument("--scheduler-config", help="the cluster's KubeSchedulerConfiguration file")
    p.add_argument("--scheduler-preset", help="a preset scheduler configuration by name")
    _cluster_args(p)
    s = sub.add_parser(
        "snapshot",
        help="save the current context as a snapshot file",
        description="The current context's nodes, pods, PDBs, PriorityClasses and "
        "ResourceQuotas (when it may list them) as one scrubbed file in the upload format. --namespace and --selector narrow the pending "
        "pods only: every pod bound to a node is kept, as its room counts for scheduling.",
    )
    s.add_argument("-o", "--output", default="-", help="the file to write (default: stdout)")
    s.add_argument("--namespace", help="keep pending pods of this namespace only")
    s.add_argument("--selector", help="keep pending pods with these labels only (k=v,...)")
    _cluster_args(s)
    push = sub.add_parser("push", help="upload a snapshot to a running preemptlab")
    push.add_argument("files", nargs="+", help="snapshot files")
    push.add_argument("--server", required=True, help="the preemptlab URL")
    push.add_argument(
        "--token-file",
        metavar="FILE",
        help="a file holding the API token (manage.py drf_create_token USER); "
        "default: PREEMPTLAB_TOKEN",
    )
    push.add_argument(
        "--token", help="the API token itself: visible in ps, prefer PREEMPTLAB_TOKEN"
    )
    push.add_argument(
        "--insecure",
        action="store_true",
        help="allow a plain http:// --server other than this machine: the token and the "
        "snapshot cross the network in clear",
    )
    push.add_argument("--name", help="the snapshot's name (default: the first file's)")
    serve = sub.add_parser("serve", help="run the web app on the embedded default")
    serve.add_argument("--port", type=int, default=8000)
    mcp = sub.add_parser("mcp", help="a Model Context Protocol server over stdio, for agents")
    mcp.add_argument(
        "--root",
        metavar="DIR",
        help="the folder whose files the tools may read as snapshots "
        "(default: PREEMPTLAB_MCP_ROOT, else the current folder)",
    )
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.command == "whatif":
            return whatif(args)
        if args.command == "plan":
            return plan(args)
        if args.command == "drain":
            return drain(args)
        if args.command == "snapshot":
            from preemptlab.snapshot import save_snapshot

            save_snapshot(args)
            return 0
        if args.command == "push":
            from preemptlab.push import push

            return push(args)
        if args.command == "serve":
            from preemptlab.serve import serve

            return serve(args.port)
        from preemptlab.mcp_server import run

        run(args.root)
        return 0
    except KubeError as e:
        print(f"preemptlab: {e}", file=sys.stderr)
        return BAD_INPUT


def _stdin_to(path: Path) -> str:
    # Copied a piece at a time: the command judges the file by its size before reading
    # it, so a manifest beyond the limit never sits in memory whole.
    with path.open("wb") as out:
        shutil.copyfileobj(sys.stdin.buffer, out)
    return str(path)


def _passed_on(
    args: argparse.Namespace, options: tuple[tuple[str, object, str], ...] = WHATIF_OPTIONS
) -> list[str]:
    out: list[str] = []
    for flag, takes_value, _ in options:
        value = getattr(args, flag[2:].replace("-", "_"))
        if takes_value == "append":
            for v in value:
                out += [flag, v]
        elif takes_value and value is not None:
            out += [flag, value]
        elif not takes_value and value:
            out.append(flag)
    return out


def _snapshot_files(args: argparse.Namespace, work: Path, *, quotas: bool = False) -> list[str]:
    """The snapshot files given (- read from standard input), else the live cluster read
    through kubectl into ``work`` (its volume and device objects where it allows, with
    its ResourceQuotas when ``quotas``)."""
    files = [s if s != "-" else _stdin_to(work / "stdin-snapshot") for s in args.snapshot]
    if files:
        return files
    read = Kubectl.from_args(args).read_snapshot(work, quotas=quotas)
    return [str(path) for path in read.paths]


def _command(name: str, *argv: str) -> int:
    """manage.py's command ``name``, its CommandError printed as manage.py prints it."""
    setup_django()
    from django.core.management import call_command
    from django.core.management.base import CommandError

    try:
        call_command(name, *argv)
    except CommandError as e:
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        return e.returncode
    return 0


def _live_scheduler(args: argparse.Namespace) -> list[str]:
    """On a live read with no configuration given: the preset OpenShift's Scheduler
    profile names, as the cluster's own (nothing where the API has no such resource)."""
    if args.snapshot or args.scheduler_config or args.scheduler_preset:
        return []
    preset = Kubectl.from_args(args).read_openshift_profile()
    return ["--snapshot-scheduler-preset", preset] if preset else []


def whatif(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="preemptlab-") as tmp:
        work = Path(tmp)
        snapshots = _snapshot_files(args, work)
        cluster_scheduler = _live_scheduler(args)
        manifests = [
            m if m != "-" else _stdin_to(work / f"stdin-manifest-{i}")
            for i, m in enumerate(args.filename)
        ]
        if len(manifests) == 1:
            manifest = manifests[0]
        else:  # several files: one stream of documents, in order
            joined = work / "manifests.yaml"
            joined.write_bytes(b"\n---\n".join(Path(m).read_bytes() for m in manifests))
            manifest = str(joined)
        return _command("whatif", *snapshots, manifest, *_passed_on(args), *cluster_scheduler)


def plan(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="preemptlab-") as tmp:
        snapshots = _snapshot_files(args, Path(tmp), quotas=True)
        options = ["--format", args.format, "--fail-on", args.fail_on]
        for given in args.critical:
            options += ["--critical", given]
        if args.first_in_line:
            options += ["--first-in-line", "--size", args.size, "--limit", args.limit]
        for flag, value in (
            ("--scheduler-config", args.scheduler_config),
            ("--scheduler-preset", args.scheduler_preset),
        ):
            if value:
                options += [flag, value]
        return _command("plan", *snapshots, *options, *_live_scheduler(args))


def drain(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="preemptlab-") as tmp:
        snapshots = _snapshot_files(args, Path(tmp))
        return _command(
            "drain", *snapshots, *_passed_on(args, DRAIN_OPTIONS), *_live_scheduler(args)
        )
