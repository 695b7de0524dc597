"""What manage.py whatif and plan read a cluster from: the snapshot's files, or a
stored snapshot by name or id. One reader, so both commands answer alike."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from clusters.models import Snapshot
from clusters.selectors import snapshot_find, snapshot_objects
from scheduling import scheduler_config
from scheduling.analyses.submission import PodRejected
from scheduling.engine import Cluster, load_cluster, read_documents
from scheduling.engine.words import join_names, plural
from scheduling.engine.workload import (
    is_workload_object,
    strip_skipped,
    workload_kinds,
    workload_objects,
)
from scheduling.reports import gates
from scheduling.reports.escaping import md_code, md_text, plain
from scheduling.scheduler_config import SchedulerChoice, SchedulerSource


def add_stored_snapshot_arguments(parser: CommandParser) -> None:
    parser.add_argument(
        "--snapshot", metavar="NAME|ID", help="ask a stored snapshot instead of files"
    )
    parser.add_argument(
        "--owner",
        metavar="USERNAME",
        help="with --snapshot: look among this user's snapshots only",
    )


def add_scheduler_arguments(parser: CommandParser) -> None:
    parser.add_argument(
        "--scheduler-config",
        metavar="FILE",
        help="the run's own KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1, "
        "YAML or JSON: kube-scheduler's --config file); without it the stored snapshot's "
        "(--snapshot) applies, else kube-scheduler's default profile",
    )
    parser.add_argument(
        "--scheduler-preset",
        metavar="NAME",
        help="a preset configuration instead: " + ", ".join(scheduler_config.presets()),
    )
    parser.add_argument(
        "--snapshot-scheduler-preset",
        metavar="NAME",
        help="the cluster's own configuration as a preset (the installed CLI passes the "
        "one OpenShift's Scheduler profile names on a live read); the two options above "
        "go before it",
    )


def scheduler_choice(options: dict[str, Any]) -> SchedulerChoice:
    """In order: --scheduler-config or --scheduler-preset, the cluster's own
    (--snapshot-scheduler-preset, or the stored snapshot's), the default profile."""
    try:
        text = read_bytes(options["scheduler_config"]) if options["scheduler_config"] else None
        given = scheduler_config.choice_given(config=text, preset=options["scheduler_preset"])
        if given is not None:
            return given
        if options["snapshot_scheduler_preset"]:
            preset = scheduler_config.preset_get(options["snapshot_scheduler_preset"])
            return SchedulerChoice(None, SchedulerSource.SNAPSHOT, preset.name)
    except PodRejected as e:
        flag = "--scheduler-preset" if e.field == "scheduler_preset" else "--scheduler-config"
        raise CommandError(plain(f"{flag}: {e.message}"), returncode=gates.BAD_INPUT) from None
    if options["snapshot"]:
        return scheduler_config.snapshot_choice(stored_snapshot(options))
    return scheduler_config.DEFAULT_CHOICE


def read_bytes(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as e:
        raise CommandError(f"{path}: {e.strerror}", returncode=gates.BAD_INPUT) from None


def read_input(path: str) -> list[dict[str, Any]]:
    return read_documents(read_bytes(path), Path(path).name)


def stored_snapshot(options: dict[str, Any]) -> Snapshot:
    """The snapshot --snapshot (and --owner) name."""
    try:
        return snapshot_find(ref=options["snapshot"], owner=options["owner"])
    except LookupError as e:
        raise CommandError(plain(e), returncode=gates.BAD_INPUT) from None


def _holding(documents: list[Any]) -> str:
    """What the documents are, in a few words: "40 objects (35 Pods, 5 Nodes)", "a Node"
    (read_documents has spliced a List's items in already)."""

    def kinds(objects: list[Any]) -> str:
        counted = Counter(
            str(o.get("kind") or "object without a kind") if isinstance(o, Mapping) else "value"
            for o in objects
        )
        return ", ".join(plural(n, k) for k, n in counted.most_common(4))

    docs = [d for d in documents if d is not None]
    if not docs:
        return "nothing"
    if len(docs) == 1 and isinstance(docs[0], Mapping):
        doc = docs[0]
        if doc.get("kind"):
            return f"a {doc['kind']}"
        keys = ", ".join(list(map(str, doc))[:4])
        return f"a document without a kind (keys: {keys})"
    objects = workload_objects(docs)
    return f"{len(objects)} objects ({kinds(objects)})"


def whatif_objects(documents: list[Any], path: str) -> list[Any]:
    """The objects of the what-if's file ``path`` read as ``documents`` (List items
    spliced in): chart output is taken whole (the kinds a what-if skips kept as their
    kind and name only); a file without a Pod or workload (a snapshot, a Node, a values
    file) is refused by saying what it holds and what to give instead."""
    objects = workload_objects(documents)
    nodes = any(isinstance(o, Mapping) and o.get("kind") == "Node" for o in objects)
    readable = not nodes and all(isinstance(o, Mapping) for o in objects)
    if readable and any(is_workload_object(o) for o in objects):
        return strip_skipped(objects)
    name = Path(path).name
    if nodes:
        todo = (
            f"it reads as a snapshot: give it as the cluster, then the Pod's manifest "
            f"(preemptlab whatif {name} -f POD.yaml; manage.py whatif {name} POD.yaml)"
        )
    else:
        todo = "give the manifest of a " + join_names(workload_kinds(), conjunction="or")
    raise CommandError(
        plain(f"{name} holds {_holding(documents)}, not a Pod or a workload: {todo}"),
        returncode=gates.BAD_INPUT,
    )


def stored_snapshot_cluster(options: dict[str, Any]) -> tuple[Cluster, str]:
    """The cluster of --snapshot (and --owner), and its name as Markdown."""
    snapshot = stored_snapshot(options)
    objects = snapshot_objects(snapshot=snapshot)
    return (
        load_cluster(objects, source=snapshot.name),
        f"snapshot {snapshot.pk} “{md_text(snapshot.name)}”",
    )


def not_a_snapshot(paths: list[str]) -> str:
    """Why snapshot files without a node cannot answer: what they hold, and what to give."""
    held = "; ".join(f"{Path(p).name} holds {_holding(read_input(p))}" for p in paths)
    return (
        f"{held}: no nodes to run the pod on, so it is not a snapshot. Give the cluster "
        "first (kubectl get nodes,pods,pdb,priorityclasses -A -o json > snap.json), then "
        "the manifest."
    )


def files_cluster(paths: list[str]) -> tuple[Cluster, str]:
    """The cluster of the snapshot's files (several merge into one), and their names as
    Markdown."""
    objects = [obj for path in paths for obj in read_input(path)]
    names = ", ".join(md_code(Path(p).name) for p in paths)
    return load_cluster(objects, source=Path(paths[0]).name), names
