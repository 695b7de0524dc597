"""The cluster the app runs in, when it runs in a pod: the API server the kubelet names
in every container's environment (KUBERNETES_SERVICE_HOST and _PORT) and the
ServiceAccount folder mounted at CONNECTED_SERVICEACCOUNT_DIR (``token``, ``ca.crt``,
``namespace``), as client-go's in-cluster configuration reads them.

A Cluster whose source is in-cluster is read with a kubeconfig made of these: the server,
the folder's CA and its token *file* (kubectl reads it again as the kubelet rotates it),
so the read is kubectl's usual one and the folder may be another in tests."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from connected.models import IN_CLUSTER
from preemptlab.kube import KubeError


@dataclass(frozen=True)
class InCluster:
    """The API server's address, the pod's namespace (None: no namespace file) and the
    ServiceAccount folder."""

    server: str
    namespace: str | None
    folder: Path

    def __str__(self) -> str:
        where = f"cluster at {self.server}"
        return f"{where}, namespace {self.namespace}" if self.namespace else where

    def kubeconfig(self, path: Path) -> Path:
        """Writes, at ``path``, a kubeconfig whose only context is this cluster as the
        ServiceAccount; it names the token's file, never holds the token. KubeError when
        no token is mounted."""
        token = self.folder / "token"
        if not token.is_file():
            raise KubeError(
                f"no ServiceAccount token at {token}: the worker's pod must mount it "
                "(automountServiceAccountToken: true, as deploy/kubernetes gives the worker)"
            )
        cluster: dict[str, str] = {"server": self.server}
        ca = self.folder / "ca.crt"
        if ca.is_file():
            cluster["certificate-authority"] = str(ca)
        context = {"cluster": IN_CLUSTER, "user": "serviceaccount"}
        if self.namespace:
            context["namespace"] = self.namespace
        path.write_text(
            json.dumps(
                {
                    "apiVersion": "v1",
                    "kind": "Config",
                    "clusters": [{"name": IN_CLUSTER, "cluster": cluster}],
                    "users": [{"name": "serviceaccount", "user": {"tokenFile": str(token)}}],
                    "contexts": [{"name": IN_CLUSTER, "context": context}],
                    "current-context": IN_CLUSTER,
                }
            )
        )
        path.chmod(0o600)
        return path


def in_cluster(
    environ: Mapping[str, str] | None = None, folder: str | Path | None = None
) -> InCluster | None:
    """Where this process runs; None outside a pod (no KUBERNETES_SERVICE_HOST/PORT)."""
    environ = os.environ if environ is None else environ
    host = environ.get("KUBERNETES_SERVICE_HOST", "").strip()
    port = environ.get("KUBERNETES_SERVICE_PORT", "").strip()
    if not host or not port:
        return None
    # An IPv6 address in brackets, as client-go's net.JoinHostPort writes it.
    server = f"https://[{host}]:{port}" if ":" in host else f"https://{host}:{port}"
    folder = Path(folder or settings.CONNECTED_SERVICEACCOUNT_DIR)
    try:
        namespace = (folder / "namespace").read_text().strip() or None
    except OSError:
        namespace = None
    return InCluster(server=server, namespace=namespace, folder=folder)


def in_cluster_kubeconfig(path: Path) -> Path:
    """The kubeconfig an in-cluster read uses, written at ``path``; KubeError outside a
    pod or without a token."""
    here = in_cluster()
    if here is None:
        raise KubeError(
            "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT "
            "are unset (a cluster whose source is in-cluster is read by a worker in a pod)"
        )
    return here.kubeconfig(path)
