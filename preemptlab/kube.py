"""Reading a live cluster through the user's own kubectl: their context, auth plugins
and proxies, and read-only calls only (``kubectl get``, which lists)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from preemptlab.kube_proxy import (
    Origin,
    ProxiedCluster,
    ProxyUnsupported,
    ServerProxy,
    upstream_for,
)
from preemptlab.kube_run import Bounds, explain_failure, failure_sentence, run_bounded

# What a snapshot is made of: the upload format, `kubectl get <these> -A -o json`.
RESOURCES = ("nodes", "pods", "poddisruptionbudgets", "priorityclasses")

# The bounds of a read where no setting gives them (the CLI and the MCP server): the
# app's MAX_UPLOAD_MB default (or MAX_UPLOAD_MB from the environment), kubectl's memory
# (memory_bound), and the app's CONNECTED_READ_TIMEOUT default.
DEFAULT_MAX_BYTES = int(os.environ.get("MAX_UPLOAD_MB") or 256) * 2**20


def memory_bound(max_bytes: int) -> int:
    """kubectl's memory while it reads at most ``max_bytes``: twice that and 128 MiB more.
    kubectl holds about three times what it has received, so an endless list meets this
    bound a little before MAX_UPLOAD_MB, and a list it must decode as well sooner."""
    return 2 * max_bytes + 128 * 2**20


DEFAULT_MAX_MEMORY = memory_bound(DEFAULT_MAX_BYTES)
DEFAULT_TIMEOUT = 120.0


@dataclass(frozen=True)
class OptionalResource:
    """A resource a snapshot holds where the cluster serves it and lets it be listed: the
    volume plugins' and DynamicResources' objects. A cluster without them (no
    resource.k8s.io/v1 before Kubernetes 1.34, a role without storage.k8s.io) still
    gives its snapshot, and says what it left out."""

    group: str  # the API group ("": core)
    version: str
    plural: str

    @property
    def asked(self) -> str:
        """What kubectl is asked for: pinned to the version the snapshot reads (a cluster
        serving only resource.k8s.io/v1beta1 has none of the v1 objects, rather than
        objects of another shape)."""
        return f"{self.plural}.{self.version}.{self.group}" if self.group else self.plural


VOLUME_RESOURCES = (
    OptionalResource("", "v1", "persistentvolumeclaims"),
    OptionalResource("", "v1", "persistentvolumes"),
    OptionalResource("storage.k8s.io", "v1", "storageclasses"),
    OptionalResource("storage.k8s.io", "v1", "csinodes"),
    OptionalResource("storage.k8s.io", "v1", "csidrivers"),
    OptionalResource("storage.k8s.io", "v1", "volumeattachments"),
    OptionalResource("storage.k8s.io", "v1", "csistoragecapacities"),
)
DEVICE_RESOURCES = (
    OptionalResource("resource.k8s.io", "v1", "deviceclasses"),
    OptionalResource("resource.k8s.io", "v1", "resourceslices"),
    OptionalResource("resource.k8s.io", "v1", "resourceclaims"),
    OptionalResource("resource.k8s.io", "v1", "resourceclaimtemplates"),
)
# Read in these groups, one kubectl call each when every resource of it can be listed.
OPTIONAL_RESOURCES = {"volumes": VOLUME_RESOURCES, "devices": DEVICE_RESOURCES}


@dataclass(frozen=True)
class SnapshotRead:
    """The files a live read wrote (the upload format, each a v1 List) and what it left
    out: "<resource>: <why>", one for each optional resource the cluster would not give."""

    paths: list[Path]
    left_out: list[str]


class KubeError(Exception):
    """kubectl could not give the cluster: what went wrong and what to do."""


@dataclass(frozen=True)
class Kubectl:
    """The user's kubectl and which cluster it talks to (None: kubectl's own default).

    ``timeout`` (seconds) bounds each call, kubectl's own requests and the process;
    ``env`` replaces kubectl's environment (a worker reading in-cluster hides any
    kubeconfig so that kubectl takes the pod's ServiceAccount). ``max_bytes`` bounds what
    one call receives and ``max_memory`` kubectl's resident memory, both while it runs
    (preemptlab.kube_run).
    """

    kubectl: str = "kubectl"
    context: str | None = None
    kubeconfig: str | None = None
    timeout: float | None = DEFAULT_TIMEOUT
    env: Mapping[str, str] | None = None
    max_bytes: int | None = DEFAULT_MAX_BYTES
    max_memory: int | None = DEFAULT_MAX_MEMORY

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Kubectl:
        return cls(args.kubectl, args.context, args.kubeconfig)

    @property
    def where(self) -> str:
        return f'context "{self.context}"' if self.context else "the current kubectl context"

    def executable(self) -> str:
        found = shutil.which(self.kubectl)
        if found is None:
            raise KubeError(
                f"{self.kubectl} was not found: install kubectl (Debian: the kubernetes-client "
                "package) or give its path with --kubectl, or pass a snapshot file instead."
            )
        return found

    def command(self) -> list[str]:
        """kubectl with this context and kubeconfig (as the user would type it)."""
        cmd = [self.executable()]
        if self.kubeconfig:
            cmd += ["--kubeconfig", self.kubeconfig]
        if self.context:
            cmd += ["--context", self.context]
        return cmd

    @property
    def bounds(self) -> Bounds:
        return Bounds(max_bytes=self.max_bytes, max_memory=self.max_memory, timeout=self.timeout)

    def _environ(self) -> dict[str, str]:
        return dict(self.env if self.env is not None else os.environ)

    def _cluster(self) -> ProxiedCluster:
        """The cluster entry of the context in use, from kubectl's own merged view of the
        kubeconfig (files named relative to their kubeconfig embedded: --flatten).
        Credentials come with the view and are dropped in ProxiedCluster.of_view."""
        view = subprocess.run(
            [*self.command(), "config", "view", "--raw", "--minify", "--flatten", "-o", "json"],
            capture_output=True,
            env=self._environ(),
            timeout=min(self.timeout or 30.0, 30.0),
            check=False,
        )
        if view.returncode != 0:
            raise KubeError(
                explain_failure(view.stderr[-4096:].decode(errors="replace"), self.where, ())
            )
        try:
            return ProxiedCluster.of_view(view.stdout)
        except ValueError:
            raise KubeError(
                f"no usable kubectl context ({self.where}): its cluster names no https:// or "
                "http:// server"
            ) from None

    @contextmanager
    def _through_proxy(self, tmp: Path) -> Iterator[tuple[list[str], dict[str, str], ServerProxy]]:
        """kubectl's command and environment for one call through a ServerProxy that
        admits the context's API server alone (preemptlab.kube_proxy): an overlay
        kubeconfig holding that cluster entry, proxy-url set, first in KUBECONFIG (the
        --kubeconfig flag would make kubectl read no other file)."""
        cluster = self._cluster()
        env = self._environ()
        try:
            upstream = upstream_for(cluster.server, cluster.cluster, env)
        except ProxyUnsupported as e:
            raise KubeError(
                f"the cluster is reached through a {e} proxy ({self.where}), which a read does "
                "not chain to: give the cluster an http:// proxy-url, or none"
            ) from None
        with ServerProxy(Origin.of_url(cluster.server), upstream) as proxy:
            overlay = cluster.overlay(tmp / "proxied.kubeconfig", proxy.url)
            original = (
                self.kubeconfig
                or env.get("KUBECONFIG")
                or str(Path(env.get("HOME") or Path.home()) / ".kube" / "config")
            )
            env["KUBECONFIG"] = os.pathsep.join([str(overlay), original])
            cmd = [self.executable()]
            if self.context:
                cmd += ["--context", self.context]
            if self.timeout:
                cmd += [f"--request-timeout={max(1, int(self.timeout))}s"]
            # One log line per HTTP exchange on stderr: a redirect's status (kube_run).
            yield [*cmd, "-v=6"], env, proxy

    def _run(self, args: list[str], out: Path, resources: tuple[str, ...]) -> None:
        """kubectl ``args`` (read-only verbs only) into ``out``, within the bounds and
        through the proxy; KubeError, in one of kube_run's sentences, when it failed or
        was stopped."""
        try:
            with (
                tempfile.TemporaryDirectory(prefix="preemptlab-kubectl-") as tmp,
                self._through_proxy(Path(tmp)) as (cmd, env, proxy),
            ):
                outcome = run_bounded([*cmd, *args], out, self.bounds, env=env, proxy=proxy)
        except subprocess.TimeoutExpired:
            raise KubeError(f"kubectl did not read its kubeconfig in time ({self.where})") from None
        except OSError as e:
            raise KubeError(f"{self.kubectl} could not be started ({e.strerror})") from None
        if not outcome.ok:
            raise KubeError(
                failure_sentence(outcome, where=self.where, resources=resources, bounds=self.bounds)
            )

    def read(
        self, path: Path, *, resources: tuple[str, ...] = RESOURCES, quiet: bool = False
    ) -> Path:
        """Writes the cluster's ``resources`` (a snapshot's four by default) to ``path``
        as kubectl prints them (one v1 List): streamed to disk, never held here."""
        if not quiet:
            print(f"reading {', '.join(resources)} from {self.where}…", file=sys.stderr)
        t0 = time.monotonic()
        self._run(["get", ",".join(resources), "--all-namespaces", "-o", "json"], path, resources)
        if not quiet:
            print(
                f"read {path.stat().st_size / 2**20:.1f} MiB from {self.where} in "
                f"{time.monotonic() - t0:.1f} s",
                file=sys.stderr,
            )
        return path

    def read_openshift_profile(self) -> str | None:
        """The preset OpenShift's Scheduler profile names (``kubectl get
        schedulers.config.openshift.io cluster``); None, quietly, where the API has no such
        resource (not OpenShift) or it cannot be read."""
        # Imported here: reading nodes and pods needs nothing of the engine.
        from scheduling.engine.profile.presets import OPENSHIFT_PROFILES

        bounded = replace(
            self, timeout=min(self.timeout or 60, 60), max_bytes=min(self.max_bytes or 2**20, 2**20)
        )
        with tempfile.TemporaryDirectory(prefix="preemptlab-kubectl-") as tmp:
            out = Path(tmp) / "scheduler.json"
            try:
                bounded._run(["get", OPENSHIFT_SCHEDULER, "-o", "json"], out, ("schedulers",))
                scheduler = json.loads(out.read_bytes())
            except (KubeError, OSError, ValueError):
                return None
        preset = (
            openshift_preset(scheduler, OPENSHIFT_PROFILES) if isinstance(scheduler, dict) else None
        )
        if preset:
            print(
                f"scheduler configuration: OpenShift's Scheduler profile ({preset})",
                file=sys.stderr,
            )
        return preset

    def read_snapshot(
        self, work: Path, *, quotas: bool = False, quiet: bool = False
    ) -> SnapshotRead:
        """A snapshot of the cluster into ``work``: nodes, pods, PDBs and classes (a
        KubeError when they cannot be read), then the volume and device objects where
        allowed, and the ResourceQuotas when ``quotas``."""
        paths = [self.read(work / "cluster.json", quiet=quiet)]
        left_out: list[str] = []
        for name, resources in OPTIONAL_RESOURCES.items():
            found, missing = self.read_optional(work, name, resources)
            paths += found
            left_out += missing
        if quotas and (listed := self.read_quotas(work / "quotas.json")) is not None:
            paths.append(listed)
        return SnapshotRead(paths, left_out)

    def read_optional(
        self, work: Path, name: str, resources: tuple[OptionalResource, ...]
    ) -> tuple[list[Path], list[str]]:
        """The resources in one call when the cluster gives them all; else each alone,
        those it refuses or does not serve left out, said on stderr."""
        try:
            listed = self.read(
                work / f"{name}.json", resources=tuple(r.asked for r in resources), quiet=True
            )
            return [listed], []
        except KubeError:
            pass
        paths: list[Path] = []
        left_out: list[str] = []
        for resource in resources:
            try:
                paths.append(
                    self.read(
                        work / f"{name}-{resource.plural}.json",
                        resources=(resource.asked,),
                        quiet=True,
                    )
                )
            except KubeError as e:
                left_out.append(f"{resource.asked}: {e}")
                print(f"{resource.asked} left out: {e}", file=sys.stderr)
        return paths, left_out

    def read_events(self, path: Path) -> Path:
        """The cluster's events (``kubectl get events -A -o json``: what kube-scheduler
        and the kubelet recorded, Preempted and FailedScheduling among them) to ``path``."""
        return self.read(path, resources=("events",), quiet=True)

    def read_quotas(self, path: Path) -> Path | None:
        """The ResourceQuotas (the priority plan reads quota scoped by PriorityClass) to
        ``path``; None, said on stderr, where the context may not list them."""
        try:
            return self.read(path, resources=("resourcequotas",), quiet=True)
        except KubeError as e:
            print(f"ResourceQuotas left out: {e}", file=sys.stderr)
            return None


# OpenShift's cluster-wide Scheduler object, whose spec.profile names kube-scheduler's
# configuration there (scheduling.engine.profile's OPENSHIFT_PROFILES maps it to a preset).
OPENSHIFT_SCHEDULER = "schedulers.config.openshift.io/cluster"


def openshift_preset(scheduler: dict[str, object], known: dict[str, str]) -> str | None:
    """The preset of an OpenShift Scheduler object's spec.profile (None: unset or unknown;
    OpenShift's own default, LowNodeUtilization, when the field is empty)."""
    spec = scheduler.get("spec")
    profile = spec.get("profile") if isinstance(spec, dict) else None
    return known.get(str(profile or "LowNodeUtilization"))
