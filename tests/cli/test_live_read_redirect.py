"""No redirect from the API server is followed to another host, on the wire: kubectl
talks through a proxy in the reading process that admits only the API server's own
host and port (preemptlab.kube_proxy). A second server the API server redirects to
receives nothing, over HTTP and over HTTPS (CONNECT); a redirect to the server itself
is followed; the overlay kubeconfig that names the proxy holds no credential."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from preemptlab.kube import Kubectl, KubeError
from preemptlab.kube_proxy import Origin, ServerProxy, upstream_for
from tests.cli.conftest import user_env
from tests.cli.fake_apiserver import FakeAPIServer
from tests.cli.test_cli import _demo_objects
from tests.connected.test_in_cluster import _certificate

SENTENCE = "the cluster answered with a redirect (HTTP 302) to another host, which is not followed"
READS = 10


@contextmanager
def other_host(tls: tuple[Path, Path] | None = None) -> Iterator[tuple[str, list[str]]]:
    """A second loopback server (another port: another host to a client) recording every
    request line it is sent, and every connection it accepts, as they arrive."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def setup(self) -> None:
            seen.append("connection")
            super().setup()

        def do_GET(self) -> None:
            seen.append(self.path)
            body = b'{"kind":"PodList","apiVersion":"v1","items":[]}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if tls is not None:
        import ssl

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*tls)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{server.server_port}", seen
    finally:
        server.shutdown()
        server.server_close()


def _trusting(kubeconfig: Path, ca: Path) -> Path:
    """The stand-in's kubeconfig with its CA named by a path relative to the kubeconfig,
    as kubeconfigs often name files."""
    config = json.loads(kubeconfig.read_text())
    (kubeconfig.parent / "ca.crt").write_bytes(ca.read_bytes())
    config["clusters"][0]["cluster"]["certificate-authority"] = "ca.crt"
    kubeconfig.write_text(json.dumps(config))
    return kubeconfig


@pytest.mark.parametrize(
    ("api_tls", "other_tls"),
    [(False, False), (True, True), (True, False)],
    ids=["http-to-http", "https-to-https", "https-to-http"],
)
def test_a_redirect_to_another_host_is_never_followed(
    tmp_path: Path, api_tls: bool, other_tls: bool
) -> None:
    tls = _certificate(tmp_path / "tls", "apiserver")
    fake = FakeAPIServer(_demo_objects())
    with (
        other_host(tls if other_tls else None) as (elsewhere, seen),
        fake.running(tmp_path, tls=tls if api_tls else None) as kubeconfig,
    ):
        if api_tls:
            _trusting(kubeconfig, tls[0])
        fake.redirect = {"pods": f"{elsewhere}/api/v1/pods"}
        kubectl = Kubectl(kubeconfig=str(kubeconfig), timeout=20, env=user_env(tmp_path))
        reasons = []
        for i in range(READS):
            with pytest.raises(KubeError) as failed:
                kubectl.read(tmp_path / f"read-{i}.json", quiet=True)
            reasons.append(str(failed.value))
    print(f"{READS} reads redirected to {elsewhere}: it saw {seen}")
    assert seen == [], f"the other host was reached: {seen}"
    assert all(r.startswith(SENTENCE) for r in reasons), reasons
    # The API server itself was asked each time: the reads did reach the redirect.
    assert sum(p.startswith("/api/v1/pods") for p in fake.requests) >= READS


@pytest.mark.parametrize("api_tls", [False, True], ids=["http", "https"])
def test_a_redirect_to_the_server_itself_is_followed(tmp_path: Path, api_tls: bool) -> None:
    tls = _certificate(tmp_path / "tls", "apiserver")
    fake = FakeAPIServer(_demo_objects())
    with fake.running(tmp_path, tls=tls if api_tls else None) as kubeconfig:
        if api_tls:
            _trusting(kubeconfig, tls[0])
        server = json.loads(kubeconfig.read_text())["clusters"][0]["cluster"]["server"]
        fake.redirect = {"pods": f"{server}/api/v1/pods?redirected=1"}
        kubectl = Kubectl(kubeconfig=str(kubeconfig), timeout=20, env=user_env(tmp_path))
        listed = json.loads(kubectl.read(tmp_path / "read.json", quiet=True).read_bytes())
    pods = [o for o in listed["items"] if o["kind"] == "Pod"]
    assert pods and len(pods) == sum(o.get("kind") == "Pod" for o in _demo_objects())
    assert "/api/v1/pods?redirected=1" in fake.requests


def _with_cluster(kubeconfig: Path, **fields: str) -> Path:
    config = json.loads(kubeconfig.read_text())
    config["clusters"][0]["cluster"].update(fields)
    kubeconfig.write_text(json.dumps(config))
    return kubeconfig


def test_the_overlay_holds_the_cluster_entry_and_no_credential(tmp_path: Path) -> None:
    tls = _certificate(tmp_path / "tls", "apiserver")
    fake = FakeAPIServer(_demo_objects())
    with fake.running(tmp_path, tls=tls) as kubeconfig:
        _with_cluster(_trusting(kubeconfig, tls[0]), **{"tls-server-name": "127.0.0.1"})
        before = kubeconfig.read_bytes()
        kubectl = Kubectl(kubeconfig=str(kubeconfig), timeout=20, env=user_env(tmp_path))
        cluster = kubectl._cluster()
        overlay = cluster.overlay(tmp_path / "overlay.kubeconfig", "http://127.0.0.1:1")
        # A normal read goes through the proxy and the overlay.
        kubectl.read(tmp_path / "read.json", quiet=True)
    written = json.loads(overlay.read_text())
    assert set(written) == {"apiVersion", "kind", "clusters"}
    entry = written["clusters"][0]
    assert entry["name"] == "fake"
    assert entry["cluster"]["proxy-url"] == "http://127.0.0.1:1"
    assert entry["cluster"]["tls-server-name"] == "127.0.0.1"
    # The CA, named relative to the user's kubeconfig, is embedded (the overlay is
    # elsewhere): the PEM's base64.
    assert entry["cluster"]["certificate-authority-data"]
    assert "not-a-secret" not in overlay.read_text() and "users" not in overlay.read_text()
    assert overlay.stat().st_mode & 0o077 == 0
    assert kubeconfig.read_bytes() == before
    assert any(p.startswith("/api/v1/pods") for p in fake.requests)
    # The credentials came from the user's own kubeconfig, merged behind the overlay.
    assert set(fake.authorizations) == {"Bearer not-a-secret"}


class CountingProxy(ServerProxy):
    """The user's own proxy, for a test: a ServerProxy counting the connections it serves."""

    served = 0

    def _serve(self, client: Any) -> None:
        CountingProxy.served += 1
        super()._serve(client)


@pytest.mark.parametrize("api_tls", [False, True], ids=["http", "https"])
def test_the_clusters_own_proxy_is_kept_behind_ours(tmp_path: Path, api_tls: bool) -> None:
    tls = _certificate(tmp_path / "tls", "apiserver")
    fake = FakeAPIServer(_demo_objects())
    CountingProxy.served = 0
    with fake.running(tmp_path, tls=tls if api_tls else None) as kubeconfig:
        if api_tls:
            _trusting(kubeconfig, tls[0])
        server = json.loads(kubeconfig.read_text())["clusters"][0]["cluster"]["server"]
        with CountingProxy(Origin.of_url(server)) as theirs:
            _with_cluster(kubeconfig, **{"proxy-url": theirs.url})
            kubectl = Kubectl(kubeconfig=str(kubeconfig), timeout=20, env=user_env(tmp_path))
            kubectl.read(tmp_path / "read.json", quiet=True)
            assert CountingProxy.served > 0
            _with_cluster(kubeconfig, **{"proxy-url": "socks5://127.0.0.1:1"})
            with pytest.raises(KubeError, match="through a socks5 proxy"):
                kubectl.read(tmp_path / "read.json", quiet=True)


@pytest.mark.parametrize(
    ("server", "env", "expected"),
    [
        ("https://api.example.com:6443", {"HTTPS_PROXY": "http://proxy:3128"}, ("proxy", 3128)),
        ("https://api.example.com", {"https_proxy": "http://u:p@proxy"}, ("proxy", 80)),
        ("http://api.example.com", {"HTTPS_PROXY": "http://proxy:3128"}, None),
        ("https://127.0.0.1:6443", {"HTTPS_PROXY": "http://proxy:3128"}, None),
        ("https://localhost:6443", {"HTTPS_PROXY": "http://proxy:3128"}, None),
        ("https://api.example.com", {"HTTPS_PROXY": "http://p:1", "NO_PROXY": "example.com"}, None),
        (
            "https://example.com",
            {"HTTPS_PROXY": "http://p:1", "NO_PROXY": ".example.com"},
            ("p", 1),
        ),
        ("https://10.1.2.3", {"HTTPS_PROXY": "http://p:1", "NO_PROXY": "10.0.0.0/8"}, None),
        ("https://api.example.com", {"HTTPS_PROXY": "http://p:1", "NO_PROXY": "*"}, None),
        (
            "https://a.example.com:443",
            {"HTTPS_PROXY": "http://p:1", "NO_PROXY": "a.example.com:6443"},
            ("p", 1),
        ),
    ],
)
def test_the_proxy_go_would_use_from_the_environment(
    server: str, env: dict[str, str], expected: tuple[str, int] | None
) -> None:
    """Named only: nothing is sent to these addresses."""
    upstream = upstream_for(server, {}, env)
    assert (upstream and (upstream.origin.host, upstream.origin.port)) == expected
    if upstream is not None and "u:p@" in env.get("https_proxy", ""):
        assert upstream.authorization == "Basic dTpw"


def _exchange(proxy_url: str, data: bytes) -> bytes:
    """``data`` sent to the proxy on one connection; all it answered until it closed."""
    import socket

    port = int(proxy_url.rpartition(":")[2])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(data)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    return answer


def test_the_proxy_sends_nothing_to_another_host_whatever_it_is_asked(tmp_path: Path) -> None:
    fake = FakeAPIServer(_demo_objects())
    with other_host() as (elsewhere, seen), fake.running(tmp_path) as kubeconfig:
        server = json.loads(kubeconfig.read_text())["clusters"][0]["cluster"]["server"]
        other = elsewhere.removeprefix("http://")
        with ServerProxy(Origin.of_url(server)) as proxy:
            # A request for the server, with one for the other host behind it on the
            # same connection: the first is answered, the second never forwarded.
            answer = _exchange(
                proxy.url,
                f"GET {server}/version HTTP/1.1\r\nHost: x\r\n\r\n"
                f"GET {elsewhere}/api/v1/pods HTTP/1.1\r\nHost: {other}\r\n\r\n".encode(),
            )
            assert answer.startswith(b"HTTP/1.0 200") and b'"v1.35.4"' in answer
            assert not proxy.refused.is_set()
            for ask in (
                f"CONNECT {other} HTTP/1.1\r\nHost: {other}\r\n\r\n",
                f"GET {elsewhere}/api/v1/pods HTTP/1.1\r\nHost: {other}\r\n\r\n",
                f"GET https{server.removeprefix('http')}/api HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /api HTTP/1.1\r\nHost: x\r\n\r\n",
            ):
                assert _exchange(proxy.url, ask.encode()).startswith(b"HTTP/1.1 403"), ask
            assert proxy.refused.is_set()
    assert seen == []
    assert fake.requests == ["/version"]
