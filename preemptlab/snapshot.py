"""preemptlab snapshot: the current context as one scrubbed file, the upload format."""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

from preemptlab.kube import Kubectl


def _selector(text: str | None) -> dict[str, str | None]:
    """ "app=web,tier" as {"app": "web", "tier": None} (None: the key is present)."""
    out: dict[str, str | None] = {}
    for part in (text or "").split(","):
        if part.strip():
            key, _, value = part.partition("=")
            out[key.strip()] = value.strip() if "=" in part else None
    return out


def _kept(obj: dict[str, Any], namespace: str | None, selector: dict[str, str | None]) -> bool:
    """Every object but pending pods outside the namespace or the selector: a pod bound
    to a node holds room there, whoever asks, so it always stays."""
    if obj.get("kind") != "Pod" or (obj.get("spec") or {}).get("nodeName"):
        return True
    meta = obj.get("metadata") or {}
    if namespace and meta.get("namespace", "default") != namespace:
        return False
    labels = meta.get("labels") or {}
    return all(k in labels if v is None else labels.get(k) == v for k, v in selector.items())


def save_snapshot(args: argparse.Namespace) -> None:
    from preemptlab.runtime import setup_django

    setup_django()
    from clusters.ingest.scrub import scrub_object, scrub_report_lines

    with tempfile.TemporaryDirectory(prefix="preemptlab-") as tmp:
        # The cluster's objects, then its volume and device objects and ResourceQuotas
        # where it lets them be listed (each left out, said on stderr, where not).
        read = Kubectl.from_args(args).read_snapshot(Path(tmp), quotas=True)
        listed = orjson.loads(read.paths[0].read_bytes())
        for path in read.paths[1:]:
            listed["items"] = list(listed.get("items") or []) + list(
                orjson.loads(path.read_bytes()).get("items") or []
            )
    report: Counter[str] = Counter()
    selector = _selector(args.selector)
    items = [
        o
        for o in listed.get("items") or []
        if isinstance(o, dict) and _kept(o, args.namespace, selector) and scrub_object(o, report)
    ]
    data = orjson.dumps({"apiVersion": "v1", "kind": "List", "items": items})
    if args.output == "-":
        sys.stdout.buffer.write(data + b"\n")
    else:
        Path(args.output).write_bytes(data + b"\n")
    kinds = Counter(str(o.get("kind")) for o in items)
    print(
        "snapshot: " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "empty",
        file=sys.stderr,
    )
    for line in scrub_report_lines(dict(report)):
        print(f"scrubbed: {line}", file=sys.stderr)
