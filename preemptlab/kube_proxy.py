"""The one host a kubectl call may reach: its API server's own host and port.

kubectl follows HTTP redirects and has no option not to (kubernetes/kubernetes#93129),
and Go follows a 302 the moment it arrives: watching kubectl's log lines and killing it
comes too late, the redirected GET has left already. So kubectl talks to the cluster
through a proxy in the reading process (ServerProxy) that admits the API server's
host:port and nothing else: a CONNECT to it is tunnelled (HTTPS), a request for it in
absolute form is forwarded (HTTP); any other host is answered 403 and never dialled.

client-go sends every request, redirect hops included, to the proxy the kubeconfig's
cluster entry names (``proxy-url``), loopback servers included (HTTPS_PROXY would not do:
Go ignores it for loopback). That entry is set by an overlay kubeconfig put first in
KUBECONFIG (ProxiedCluster): kubeconfig files merge entry by entry, the first file to
define a cluster wins, so the overlay holds the cluster entry alone (server, certificate
authority, TLS server name: nothing secret) and the credentials stay in the user's own
file, never copied.

A proxy the user needs (the entry's own ``proxy-url``, else HTTPS_PROXY/HTTP_PROXY as Go
reads them) is kept: the tunnel to the API server goes through it (an http:// proxy,
with CONNECT).
"""

from __future__ import annotations

import base64
import contextlib
import ipaddress
import json
import os
import select
import socket
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, unquote, urlsplit

# The longest request head taken from kubectl (its request lines and headers are short).
HEAD_MAX = 64 * 1024
# Seconds to connect to the API server (or the user's proxy); kubectl's own request
# timeout bounds everything after.
DIAL_TIMEOUT = 30.0
CHUNK = 64 * 1024


class ProxyUnsupported(ValueError):
    """The cluster is reached through a proxy this side cannot chain to."""


@dataclass(frozen=True)
class Origin:
    """A host and port as a client dials them: the host lowercased, without brackets."""

    host: str
    port: int

    @classmethod
    def of_url(cls, url: str) -> Origin:
        """The origin of ``url``; ValueError when it names no host."""
        split = urlsplit(url)
        if not split.hostname or split.scheme not in ("http", "https"):
            raise ValueError("not an http(s) URL with a host")
        return cls(split.hostname.lower(), split.port or (443 if split.scheme == "https" else 80))

    @classmethod
    def of_authority(cls, authority: str) -> Origin | None:
        """``host:port`` (``[::1]:443`` for IPv6) as a CONNECT names it; None if malformed."""
        host, sep, port = authority.rpartition(":")
        if not sep or not port.isdigit():
            return None
        return cls(host.strip("[]").lower(), int(port))

    @property
    def authority(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


@dataclass(frozen=True)
class Upstream:
    """The user's own http:// proxy to the API server, and its Proxy-Authorization."""

    origin: Origin
    authorization: str | None = None

    @classmethod
    def of_url(cls, url: str) -> Upstream:
        split = urlsplit(url if "://" in url else f"http://{url}")
        if split.scheme != "http":
            raise ProxyUnsupported(split.scheme)
        authorization = None
        if split.username is not None:
            pair = f"{unquote(split.username)}:{unquote(split.password or '')}"
            authorization = "Basic " + base64.b64encode(pair.encode()).decode()
        return cls(Origin.of_url(split._replace(scheme="http").geturl()), authorization)


def upstream_for(
    server: str, cluster: Mapping[str, Any], env: Mapping[str, str]
) -> Upstream | None:
    """The proxy client-go would use for ``server`` without ours: the cluster entry's
    ``proxy-url``, else the environment's (HTTPS_PROXY or HTTP_PROXY by the server's
    scheme, NO_PROXY; never for a loopback server, as Go's http.ProxyFromEnvironment).
    ProxyUnsupported for a proxy that is not http:// (socks5, https)."""
    named = cluster.get("proxy-url")
    if isinstance(named, str) and named:
        return Upstream.of_url(named)
    scheme = urlsplit(server).scheme
    proxies = {
        key: env.get(f"{key}_proxy".upper()) or env.get(f"{key}_proxy") or ""
        for key in (scheme, "no")
    }
    origin = Origin.of_url(server)
    if not proxies[scheme] or _loopback(origin.host) or _no_proxy(origin, proxies["no"]):
        return None
    return Upstream.of_url(proxies[scheme])


def _no_proxy(origin: Origin, no_proxy: str) -> bool:
    """Whether NO_PROXY exempts ``origin``, as golang.org/x/net/http/httpproxy reads it:
    ``*``; an IP or CIDR; a domain (``example.com`` and its subdomains; ``.example.com``
    its subdomains only), each with an optional ``:port``."""
    for entry in (e.strip().lower() for e in no_proxy.split(",")):
        if not entry:
            continue
        if entry == "*":
            return True
        try:
            if ipaddress.ip_address(origin.host) in ipaddress.ip_network(entry, strict=False):
                return True
            continue
        except ValueError:
            pass
        host, sep, port = entry.rpartition(":")
        if not sep or not port.isdigit() or "]" in port:
            host, port = entry, ""
        host = host.strip("[]").removeprefix("*")
        if port and int(port) != origin.port:
            continue
        if host == origin.host:
            return True
        suffix = host if host.startswith(".") else f".{host}"
        if origin.host.endswith(suffix):
            return True
    return False


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class ServerProxy:
    """An HTTP proxy on 127.0.0.1 (a free port) that lets one kubectl call reach
    ``origin`` only. ``refused`` is set the first time another host is asked for (a
    redirect: kubectl asks for nothing else); ``unreachable`` when ``origin`` could not
    be dialled. Used as a context manager: closing it ends every open connection."""

    def __init__(self, origin: Origin, upstream: Upstream | None = None) -> None:
        self.origin = origin
        self.upstream = upstream
        self.refused = threading.Event()
        self.unreachable = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._open: set[socket.socket] = {self._listener}
        self._lock = threading.Lock()
        self._closed = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def __enter__(self) -> ServerProxy:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._closed = True
            sockets, self._open = self._open, set()
        for s in sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def _keep(self, s: socket.socket) -> bool:
        with self._lock:
            if self._closed:
                s.close()
                return False
            self._open.add(s)
            return True

    def _drop(self, s: socket.socket) -> None:
        with self._lock:
            self._open.discard(s)
        with contextlib.suppress(OSError):
            s.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # closed
            if self._keep(client):
                threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        server: socket.socket | None = None
        try:
            head, rest = _read_head(client)
            if head is None:
                return
            method, target, headers = _parse(head)
            if method == "CONNECT":
                wanted = Origin.of_authority(target)
                if wanted != self.origin:
                    self._refuse(client)
                    return
                server = self._dial(tunnel=True)
                if server is None:
                    client.sendall(_status(502, "Bad Gateway"))
                    return
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                if rest:
                    server.sendall(rest)
                _relay(client, server)
                return
            try:
                url = urlsplit(target)
                wanted = Origin.of_url(target) if url.scheme == "http" else None
            except ValueError:
                wanted = None
            if wanted != self.origin:
                self._refuse(client)
                return
            if "transfer-encoding" in headers:
                client.sendall(_status(501, "Not Implemented"))
                return
            server = self._dial(tunnel=False)
            if server is None:
                client.sendall(_status(502, "Bad Gateway"))
                return
            length = max(0, int(headers.get("content-length") or 0))
            # The body only: anything after it would be another request (Go does not
            # pipeline), which must come through _serve and its check.
            server.sendall(self._forwarded(method, url, head) + rest[:length])
            length -= len(rest[:length])
            while length > 0:
                data = client.recv(min(CHUNK, length))
                if not data:
                    return
                server.sendall(data)
                length -= len(data)
            # One request per connection (Connection: close went with it): the answer
            # until the server closes, then this connection ends too, so the next
            # request, whatever host it names, comes through _serve again.
            while data := server.recv(CHUNK):
                client.sendall(data)
        except (OSError, ValueError):
            return
        finally:
            for s in (client, server):
                if s is not None:
                    self._drop(s)

    def _refuse(self, client: socket.socket) -> None:
        self.refused.set()
        client.sendall(_status(403, "Forbidden"))

    def _dial(self, *, tunnel: bool) -> socket.socket | None:
        """A connection to the API server: straight, or through the user's proxy (a
        tunnel for HTTPS; for HTTP the request itself goes to the proxy)."""
        hop = self.upstream.origin if self.upstream else self.origin
        try:
            s = socket.create_connection((hop.host, hop.port), timeout=DIAL_TIMEOUT)
        except OSError:
            self.unreachable.set()
            return None
        if not self._keep(s):
            return None
        try:
            if self.upstream is not None and tunnel:
                lines = [
                    f"CONNECT {self.origin.authority} HTTP/1.1",
                    f"Host: {self.origin.authority}",
                ]
                if self.upstream.authorization:
                    lines.append(f"Proxy-Authorization: {self.upstream.authorization}")
                s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
                head, _ = _read_head(s)
                if head is None or head.split(b" ", 2)[1:2] != [b"200"]:
                    self.unreachable.set()
                    self._drop(s)
                    return None
            s.settimeout(None)
        except (OSError, IndexError):
            self.unreachable.set()
            self._drop(s)
            return None
        return s

    def _forwarded(self, method: str, url: SplitResult, head: bytes) -> bytes:
        """The request as the API server (or the user's proxy) is sent it: origin form
        (absolute form to a proxy), this hop's headers dropped, Connection: close."""
        if self.upstream is not None:
            target = url.geturl()
        else:
            target = (url.path or "/") + (f"?{url.query}" if url.query else "")
        lines = [f"{method} {target} HTTP/1.1"]
        hop_headers = ("connection", "keep-alive", "proxy-connection", "proxy-authorization")
        for line in head.decode("latin-1").split("\r\n")[1:]:
            name = line.partition(":")[0].strip().lower()
            if line and name not in hop_headers:
                lines.append(line)
        if self.upstream is not None and self.upstream.authorization:
            lines.append(f"Proxy-Authorization: {self.upstream.authorization}")
        lines.append("Connection: close")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _read_head(s: socket.socket) -> tuple[bytes | None, bytes]:
    """A request or response head (up to the blank line, without it) and what came after
    it; (None, b"") on a closed connection or a head over HEAD_MAX."""
    data = b""
    while b"\r\n\r\n" not in data:
        if len(data) > HEAD_MAX:
            return None, b""
        chunk = s.recv(CHUNK)
        if not chunk:
            return None, b""
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def _parse(head: bytes) -> tuple[str, str, dict[str, str]]:
    """(method, target, headers by lowercase name); ValueError when malformed."""
    first, *lines = head.decode("latin-1").split("\r\n")
    method, target, _version = first.split(" ")
    headers = {}
    for line in lines:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    return method, target, headers


def _status(code: int, reason: str) -> bytes:
    return f"HTTP/1.1 {code} {reason}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode()


def _relay(a: socket.socket, b: socket.socket) -> None:
    """Bytes both ways until either side closes."""
    while True:
        ready, _, _ = select.select([a, b], [], [])
        for s in ready:
            data = s.recv(CHUNK)
            if not data:
                return
            (b if s is a else a).sendall(data)


# -- the overlay kubeconfig ------------------------------------------------------------


@dataclass(frozen=True)
class ProxiedCluster:
    """The cluster entry of the context in use (its name and fields: server, certificate
    authority, TLS server name, never a credential, which a kubeconfig keeps in users)."""

    name: str
    cluster: dict[str, Any]

    @classmethod
    def of_view(cls, view: bytes) -> ProxiedCluster:
        """From ``kubectl config view --raw --minify --flatten -o json``: the one cluster
        entry, the rest (users: credentials) dropped here and written nowhere.
        ValueError when the view holds no usable cluster."""
        config = json.loads(view)
        clusters = config.get("clusters") if isinstance(config, dict) else None
        if not isinstance(clusters, list) or len(clusters) != 1:
            raise ValueError("no cluster")
        entry = clusters[0]
        name, cluster = entry.get("name"), entry.get("cluster")
        if not isinstance(name, str) or not isinstance(cluster, dict):
            raise ValueError("no cluster")
        if not isinstance(cluster.get("server"), str):
            raise ValueError("no server")
        Origin.of_url(cluster["server"])
        return cls(name, cluster)

    @property
    def server(self) -> str:
        return str(self.cluster["server"])

    def overlay(self, path: Path, proxy_url: str) -> Path:
        """Writes at ``path`` a kubeconfig holding this cluster entry alone, through
        ``proxy_url``; put first in KUBECONFIG it replaces the entry, nothing else."""
        cluster = {k: v for k, v in self.cluster.items() if k != "proxy-url"}
        cluster["proxy-url"] = proxy_url
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": self.name, "cluster": cluster}],
        }
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(config, f)
        return path
