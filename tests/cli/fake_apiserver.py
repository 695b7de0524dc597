"""A Kubernetes API server that answers what `kubectl get nodes,pods,... -A -o json`
asks (discovery, then one list per resource) from a snapshot's objects, for the real
kubectl in tests; a resource may be set to answer 403 as RBAC would."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

# (group/version, kind, plural, namespaced)
RESOURCES = [
    ("v1", "Node", "nodes", False),
    ("v1", "Pod", "pods", True),
    ("v1", "ResourceQuota", "resourcequotas", True),
    ("policy/v1", "PodDisruptionBudget", "poddisruptionbudgets", True),
    ("scheduling.k8s.io/v1", "PriorityClass", "priorityclasses", False),
    # OpenShift's cluster-wide Scheduler: served only when one is among the objects.
    ("config.openshift.io/v1", "Scheduler", "schedulers", False),
]


def _resource_list(group_version: str) -> dict[str, Any]:
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": [
            {
                "name": plural,
                "singularName": kind.lower(),
                "namespaced": namespaced,
                "kind": kind,
                "verbs": ["get", "list", "watch"],
                "shortNames": {"poddisruptionbudgets": ["pdb"], "priorityclasses": ["pc"]}.get(
                    plural, []
                ),
            }
            for gv, kind, plural, namespaced in RESOURCES
            if gv == group_version
        ],
    }


def _group(name: str) -> dict[str, Any]:
    version = {"groupVersion": f"{name}/v1", "version": "v1"}
    return {"name": name, "versions": [version], "preferredVersion": version}


class FakeAPIServer:
    def __init__(self, objects: list[dict[str, Any]], forbidden: set[str] | None = None) -> None:
        self.objects = objects
        self.forbidden = forbidden or set()
        self.requests: list[str] = []

    def answer(self, path: str) -> tuple[int, dict[str, Any]]:
        route = path.split("?", 1)[0].rstrip("/")
        if route == "/api":
            return 200, {
                "kind": "APIVersions",
                "versions": ["v1"],
                "serverAddressByClientCIDRs": [],
            }
        if route == "/apis":
            return 200, {
                "kind": "APIGroupList",
                "apiVersion": "v1",
                "groups": [_group("policy"), _group("scheduling.k8s.io")]
                + (
                    [_group("config.openshift.io")]
                    if any(o.get("kind") == "Scheduler" for o in self.objects)
                    else []
                ),
            }
        if route == "/version":
            return 200, {"major": "1", "minor": "35", "gitVersion": "v1.35.4"}
        for gv, kind, plural, _ in RESOURCES:
            base = "/api/v1" if gv == "v1" else f"/apis/{gv}"
            if route == base:
                return 200, _resource_list(gv)
            if route == f"{base}/{plural}":
                if plural in self.forbidden:
                    return 403, {
                        "kind": "Status",
                        "apiVersion": "v1",
                        "status": "Failure",
                        "message": f'{plural} is forbidden: User "ci" cannot list resource '
                        f'"{plural}" in API group "{gv.rpartition("/")[0]}" at the cluster scope',
                        "reason": "Forbidden",
                        "code": 403,
                    }
                items = [o for o in self.objects if o.get("kind") == kind]
                return 200, {
                    "kind": f"{kind}List",
                    "apiVersion": gv,
                    "metadata": {"resourceVersion": "1"},
                    "items": items,
                }
            if route.startswith(f"{base}/{plural}/"):
                name = route.rpartition("/")[2]
                for o in self.objects:
                    if o.get("kind") == kind and o["metadata"]["name"] == name:
                        return 200, o
        return 404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 404}

    @contextmanager
    def running(self, tmp: Path) -> Iterator[Path]:
        """Serves on a free port; yields a kubeconfig whose current context points here."""
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                fake.requests.append(self.path)
                code, body = fake.answer(self.path)
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        kubeconfig = tmp / "kubeconfig"
        kubeconfig.write_text(
            json.dumps(
                {
                    "apiVersion": "v1",
                    "kind": "Config",
                    "clusters": [
                        {
                            "name": "fake",
                            "cluster": {"server": f"http://127.0.0.1:{server.server_port}"},
                        }
                    ],
                    "users": [{"name": "ci", "user": {"token": "not-a-secret"}}],
                    "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "ci"}}],
                    "current-context": "fake",
                }
            )
        )
        try:
            yield kubeconfig
        finally:
            server.shutdown()
            server.server_close()
