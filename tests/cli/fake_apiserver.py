"""A Kubernetes API server that answers what `kubectl get nodes,pods,... -A -o json`
asks (discovery, then one list per resource) from a snapshot's objects, for the real
kubectl in tests; a resource may be set to answer 403 as RBAC would, or garbage, or
late. Every request is recorded with its verb: a write is answered 405 and kept."""

from __future__ import annotations

import json
import ssl
import threading
import time
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
    ("v1", "Event", "events", True),
    ("v1", "PersistentVolumeClaim", "persistentvolumeclaims", True),
    ("v1", "PersistentVolume", "persistentvolumes", False),
    ("storage.k8s.io/v1", "StorageClass", "storageclasses", False),
    ("storage.k8s.io/v1", "CSINode", "csinodes", False),
    ("storage.k8s.io/v1", "CSIDriver", "csidrivers", False),
    ("storage.k8s.io/v1", "VolumeAttachment", "volumeattachments", False),
    ("storage.k8s.io/v1", "CSIStorageCapacity", "csistoragecapacities", True),
    ("resource.k8s.io/v1", "DeviceClass", "deviceclasses", False),
    ("resource.k8s.io/v1", "ResourceSlice", "resourceslices", False),
    ("resource.k8s.io/v1", "ResourceClaim", "resourceclaims", True),
    ("resource.k8s.io/v1", "ResourceClaimTemplate", "resourceclaimtemplates", True),
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
    """``garbage``: resources answered with that many bytes of non-JSON; ``delay``: seconds
    every list waits before answering; ``unserved``: API groups the server does not have
    (resource.k8s.io on a cluster older than 1.34). ``calls`` holds (method, path) of
    every request; ``requests`` the paths of the GETs."""

    def __init__(
        self,
        objects: list[dict[str, Any]],
        forbidden: set[str] | None = None,
        *,
        garbage: dict[str, int] | None = None,
        delay: float = 0.0,
        endless: set[str] | None = None,
        redirect: dict[str, str] | None = None,
        unserved: set[str] | None = None,
    ) -> None:
        self.objects = objects
        self.unserved = unserved or set()
        self.forbidden = forbidden or set()
        self.garbage = garbage or {}
        self.delay = delay
        # Resources whose list never ends (objects streamed until the client goes away),
        # and resources answered 302 to another address.
        self.endless = endless or set()
        self.redirect = redirect or {}
        self.requests: list[str] = []
        self.calls: list[tuple[str, str]] = []
        # The Authorization header of every request ("" when none was sent).
        self.authorizations: list[str] = []

    @property
    def writes(self) -> list[tuple[str, str]]:
        """Every request that was not a read (GET or HEAD)."""
        return [(m, p) for m, p in self.calls if m not in ("GET", "HEAD")]

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
                "groups": [
                    _group(name)
                    for name in ("policy", "scheduling.k8s.io", "storage.k8s.io", "resource.k8s.io")
                    if name not in self.unserved
                ]
                + (
                    [_group("config.openshift.io")]
                    if any(o.get("kind") == "Scheduler" for o in self.objects)
                    else []
                ),
            }
        if route == "/version":
            return 200, {"major": "1", "minor": "35", "gitVersion": "v1.35.4"}
        for gv, kind, plural, _ in RESOURCES:
            if gv.rpartition("/")[0] in self.unserved:
                continue
            base = "/api/v1" if gv == "v1" else f"/apis/{gv}"
            if route == base:
                return 200, _resource_list(gv)
            if route == f"{base}/{plural}":
                if self.delay:
                    time.sleep(self.delay)
                if plural in self.garbage:
                    return 200, {"garbage": self.garbage[plural]}
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
    def running(
        self, tmp: Path, *, port: int = 0, tls: tuple[Path, Path] | None = None
    ) -> Iterator[Path]:
        """Serves on ``port`` (0: a free one), over HTTPS with ``tls`` (certificate, key);
        yields a kubeconfig whose current context, "fake", points here."""
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                fake.authorizations.append(self.headers.get("Authorization", ""))
                fake.calls.append(("GET", self.path))
                fake.requests.append(self.path)
                plural = self.path.split("?", 1)[0].rstrip("/").rpartition("/")[2]
                # A request that says it was redirected is answered: a redirect to the same
                # server ends there.
                if plural in fake.redirect and "redirected=1" not in self.path:
                    self.send_response(302)
                    self.send_header("Location", fake.redirect[plural])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if plural in fake.endless and self.path.startswith(("/api/v1/", "/apis/")):
                    self._stream_forever(plural)
                    return
                code, body = fake.answer(self.path)
                size = body.get("garbage") if set(body) == {"garbage"} else None
                data = b"\x00{not json" * (size // 10 + 1) if size else json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream_forever(self, plural: str) -> None:
                """A list whose items never end; no length, the connection's end ends it
                (which never comes from here)."""
                item = json.dumps(
                    {"kind": "Pod", "metadata": {"name": "x" * 60, "namespace": "default"}}
                ).encode()
                block = b"".join([item, b","] * 1000)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                try:
                    self.wfile.write(b'{"kind":"List","apiVersion":"v1","items":[')
                    while True:
                        self.wfile.write(block)
                except OSError:
                    return  # the client went away

            def _refuse(self) -> None:
                fake.calls.append((self.command, self.path))
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                data = b'{"kind":"Status","status":"Failure","code":405}'
                self.send_response(405)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_POST = do_PUT = do_PATCH = do_DELETE = _refuse

            def log_message(self, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            server.socket = context.wrap_socket(server.socket, server_side=True)
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
                            "cluster": {
                                "server": f"{'https' if tls else 'http'}://127.0.0.1:"
                                f"{server.server_port}"
                            },
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


def main() -> None:
    """python tests/cli/fake_apiserver.py [--port P] [--objects snap.json] [--dir D]: serves
    the objects (default: docs/demo-snapshot.json) until Ctrl-C and writes D/kubeconfig,
    whose context "fake" points here; each request is printed with its verb."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--port", type=int, default=8881)
    default = Path(__file__).resolve().parents[2] / "docs" / "demo-snapshot.json"
    parser.add_argument("--objects", type=Path, default=default, help="A v1 List (JSON).")
    parser.add_argument("--dir", type=Path, default=Path("var"), help="Where the kubeconfig goes.")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    fake = FakeAPIServer(json.loads(args.objects.read_text())["items"])
    with fake.running(args.dir, port=args.port) as kubeconfig:
        print(f"serving {args.objects} on http://127.0.0.1:{args.port}; kubeconfig: {kubeconfig}")
        seen = 0
        try:
            while True:
                time.sleep(0.5)
                for method, path in fake.calls[seen:]:
                    print(method, path, flush=True)
                seen = len(fake.calls)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
