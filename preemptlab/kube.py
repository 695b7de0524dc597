"""Reading a live cluster through the user's own kubectl: their context, auth plugins
and proxies, and read-only calls only (``kubectl get``, which lists)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

# What a snapshot is made of: the upload format, `kubectl get <these> -A -o json`.
RESOURCES = ("nodes", "pods", "poddisruptionbudgets", "priorityclasses")

_FORBIDDEN = re.compile(r'cannot (\w+) resource "([^"]+)"')


class KubeError(Exception):
    """kubectl could not give the cluster: what went wrong and what to do."""


def kubectl_command(
    *, kubectl: str = "kubectl", context: str | None = None, kubeconfig: str | None = None
) -> list[str]:
    found = shutil.which(kubectl)
    if found is None:
        raise KubeError(
            f"{kubectl} was not found: install kubectl (Debian: the kubernetes-client "
            "package) or give its path with --kubectl, or pass a snapshot file instead."
        )
    cmd = [found]
    if kubeconfig:
        cmd += ["--kubeconfig", kubeconfig]
    if context:
        cmd += ["--context", context]
    return cmd


def read_cluster(
    out: IO[bytes],
    *,
    kubectl: str = "kubectl",
    context: str | None = None,
    kubeconfig: str | None = None,
    quiet: bool = False,
    resources: tuple[str, ...] = RESOURCES,
) -> None:
    """Writes the current context's nodes, pods, PDBs and PriorityClasses (or the
    ``resources`` given) to ``out`` as kubectl prints them (one v1 List), streamed:
    never held in memory here."""
    cmd = kubectl_command(kubectl=kubectl, context=context, kubeconfig=kubeconfig)
    where = f'context "{context}"' if context else "the current kubectl context"
    if not quiet:
        print(f"reading {', '.join(resources)} from {where}…", file=sys.stderr)
    t0 = time.monotonic()
    proc = subprocess.run(
        [*cmd, "get", ",".join(resources), "--all-namespaces", "-o", "json"],
        stdout=out,
        stderr=subprocess.PIPE,
        check=False,
    )
    if proc.returncode != 0:
        raise KubeError(explain_failure(proc.stderr.decode(errors="replace"), where))
    if not quiet:
        size = out.tell() if out.seekable() else 0
        print(
            f"read {size / 2**20:.1f} MiB from {where} in {time.monotonic() - t0:.1f} s",
            file=sys.stderr,
        )


def explain_failure(stderr: str, where: str) -> str:
    """kubectl's error, with what the user can do about it."""
    text = stderr.strip()
    forbidden = _FORBIDDEN.search(text)
    if forbidden or "Forbidden" in text:
        verb, resource = forbidden.groups() if forbidden else ("list", "one of them")
        return (
            f"the cluster refused to {verb} {resource} ({where}): a snapshot needs get and "
            f"list on {', '.join(RESOURCES)} in every namespace; ask for a ClusterRole "
            f"with those verbs. kubectl said: {text.splitlines()[-1] if text else '-'}"
        )
    if "current-context" in text or "context was not found" in text or "does not exist" in text:
        return (
            f"no usable kubectl context ({where}): choose one with --context, or give a "
            f"kubeconfig with --kubeconfig. kubectl said: {text.splitlines()[-1]}"
        )
    if "connection refused" in text or "Unable to connect" in text or "no such host" in text:
        return f"the cluster could not be reached ({where}). kubectl said: {text.splitlines()[-1]}"
    return f"kubectl failed ({where}): {text or 'no message'}"


def read_to_file(path: Path, **kwargs: object) -> Path:
    with path.open("wb") as out:
        read_cluster(out, **kwargs)  # type: ignore[arg-type]
    return path
