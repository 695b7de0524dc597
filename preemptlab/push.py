"""preemptlab push: a snapshot file uploaded to a running preemptlab over its REST API
(POST /api/snapshots/, multipart), streamed from disk; prints the snapshot's page.
The token goes to the --server origin only, over https (or to this machine); exit 0
means a snapshot was made."""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import secrets
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CHUNK = 1 << 20


def _name_part(boundary: str, name: str) -> bytes:
    return (
        f'--{boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\n{name}\r\n'
    ).encode()


def _file_header(boundary: str, f: Path) -> bytes:
    return (
        f'--{boundary}\r\nContent-Disposition: form-data; name="files"; '
        f'filename="{f.name}"\r\nContent-Type: application/octet-stream\r\n\r\n'
    ).encode()


def _end(boundary: str) -> bytes:
    return f"--{boundary}--\r\n".encode()


def _parts(boundary: str, name: str, files: list[Path]) -> Iterator[bytes]:
    yield _name_part(boundary, name)
    for f in files:
        yield _file_header(boundary, f)
        with f.open("rb") as fh:
            while chunk := fh.read(CHUNK):
                yield chunk
        yield b"\r\n"
    yield _end(boundary)


def _length(boundary: str, name: str, files: list[Path]) -> int:
    """The body's length up front, so that it streams from disk without being joined."""
    return (
        len(_name_part(boundary, name))
        + sum(len(_file_header(boundary, f)) + f.stat().st_size + 2 for f in files)
        + len(_end(boundary))
    )


class PushError(Exception):
    """Why nothing was uploaded, said as what to do (exit status 2)."""


# Redirects that keep the method and the body (RFC 9110 15.4.8, 15.4.9); 301, 302
# and 303 let a client, and make urllib, turn the POST into a GET without its body.
KEEPS_METHOD = (307, 308)
MAX_REDIRECTS = 5
LOOPBACK_NAMES = ("localhost", "localhost.")


def origin(url: str) -> tuple[str, str, int | None]:
    """Scheme, host and port: what a redirect must keep for the token to follow it."""
    parts = urllib.parse.urlsplit(url)
    default = {"https": 443, "http": 80}.get(parts.scheme.lower())
    return parts.scheme.lower(), (parts.hostname or "").lower(), parts.port or default


def _loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _check_transport(server: str, insecure: bool) -> None:
    """https, or plain http to this machine, or plain http the user named the risk of."""
    scheme, host, _ = origin(server)
    if scheme == "https" or (scheme == "http" and _loopback(host)):
        return
    if scheme != "http":
        raise PushError(f"--server must be an https:// URL, not {server!r}")
    if not insecure:
        raise PushError(
            f"{server} is plain http: the token and the snapshot would cross the network "
            "readable by anyone on the way. Use the https:// URL, or add --insecure to "
            "send them in clear anyway"
        )
    print(
        "preemptlab push: --insecure: sending the token and the snapshot over plain http",
        file=sys.stderr,
    )


def read_token(args: argparse.Namespace) -> str:
    """The API token: --token-file, then --token (visible to anyone running ps), then
    PREEMPTLAB_TOKEN."""
    if args.token_file:
        try:
            token = Path(args.token_file).read_text().strip()
        except OSError as e:
            raise PushError(f"cannot read --token-file {args.token_file}: {e.strerror}") from e
        if not token:
            raise PushError(f"--token-file {args.token_file} is empty")
        return token
    if args.token:
        print(
            "preemptlab push: warning: --token is visible to every user of this machine "
            "(ps, /proc); use PREEMPTLAB_TOKEN or --token-file FILE",
            file=sys.stderr,
        )
        return str(args.token)
    token = os.environ.get("PREEMPTLAB_TOKEN", "").strip()
    if not token:
        raise PushError(
            "give the API token in PREEMPTLAB_TOKEN or --token-file FILE "
            "(manage.py drf_create_token USER makes one)"
        )
    return token


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Every redirect comes back as an HTTPError, for _upload to judge: urllib's own
    would follow one to another host with the token, turning the POST into a GET."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _upload(url: str, token: str, name: str, files: list[Path]) -> dict[str, Any]:
    """POST the files to url; a 307/308 to the same origin is sent the whole body again,
    any other redirect refused. The answer must be the snapshot made."""
    opener = urllib.request.build_opener(_NoRedirect)
    for _ in range(MAX_REDIRECTS + 1):
        boundary = secrets.token_hex(16)
        request = urllib.request.Request(
            url,
            data=_parts(boundary, name, files),
            method="POST",
            headers={
                "Authorization": f"Token {token}",
                "Content-Type": f"multipart/form-data; boundary={boundary}",
                "Content-Length": str(_length(boundary, name, files)),
                "Accept": "application/json",
            },
        )
        try:
            with opener.open(request, timeout=600) as r:
                status, raw = r.status, r.read()
        except urllib.error.HTTPError as e:
            if not 300 <= e.code < 400:
                raise PushError(f"{e.code} {e.read().decode(errors='replace')[:500]}") from e
            url = _redirect_target(url, e.code, e.headers.get("Location"))
            continue
        except urllib.error.URLError as e:
            raise PushError(f"cannot reach {url}: {e.reason}") from e
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if status != 201 or not isinstance(body, dict) or body.get("id") is None:
            raise PushError(
                f"{url} answered {status} without making a snapshot: nothing was uploaded. "
                "Is --server the preemptlab URL?"
            )
        return body
    raise PushError(f"more than {MAX_REDIRECTS} redirects from {url}: nothing was uploaded")


def _redirect_target(url: str, code: int, location: str | None) -> str:
    if not location:
        raise PushError(f"{url} answered {code} without a Location: nothing was uploaded")
    target = urllib.parse.urljoin(url, location)
    if origin(target) != origin(url):
        raise PushError(
            f"{url} redirects ({code}) to {target}, another origin: the token was not sent "
            "there and nothing was uploaded. If that server is yours, give it as --server"
        )
    if code not in KEEPS_METHOD:
        raise PushError(
            f"{url} redirects ({code}) to {target}, which would turn the upload into a GET: "
            "nothing was uploaded. Give --server as the URL the redirect names"
        )
    return target


def push(args: argparse.Namespace) -> int:
    files = [Path(f) for f in args.files]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        print(f"preemptlab push: no such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    name = args.name or files[0].name.split(".")[0]
    try:
        _check_transport(args.server, args.insecure)
        token = read_token(args)
        body = _upload(args.server.rstrip("/") + "/api/snapshots/", token, name, files)
    except PushError as e:
        print(f"preemptlab push: {e}", file=sys.stderr)
        return 2
    print(
        f"snapshot {body.get('id')} ({body.get('status')}): {body.get('page_url') or body.get('url')}"
    )
    return 0
