"""Webhook receivers are outbound only: the address a receiver's host resolves to is
judged when the URL is saved and again before each send (DNS may change between).

Refused: loopback, link-local (169.254.169.254, the clouds' metadata service), the
unspecified address, multicast and reserved ranges, and private networks (RFC 1918, fc00::/7,
100.64.0.0/10) unless one of PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS holds the address. Without
this, a staff member's URL (or a host renamed later) makes the worker POST to the
database, Redis or the metadata service, and the alert page tells their answers apart.

A failed send is kept as its class only (``failure_class``): a receiver's URL path is
usually its secret, and a library's error text quotes the URL.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

import requests
from django.conf import settings

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
# socket.getaddrinfo's shape, so that tests may hand in a resolver of their own.
Resolver = Callable[..., Sequence[tuple[Any, ...]]]


class ReceiverRefused(Exception):
    """A receiver this app may not send to: why, in words naming no path."""


def allowed_networks() -> list[Network]:
    """PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS (CIDRs; the settings check them at start)."""
    given = getattr(settings, "PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS", ()) or ()
    return [ipaddress.ip_network(n.strip(), strict=False) for n in given if n.strip()]


def address_refusal(address: Address, allowed: Sequence[Network]) -> str | None:
    """Why a receiver at ``address`` is refused (the kind of address), or None."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if any(address in net for net in allowed if net.version == address.version):
        return None
    for kind, test in (
        ("a loopback", address.is_loopback),
        ("a link-local", address.is_link_local),
        ("the unspecified", address.is_unspecified),
        ("a multicast", address.is_multicast),
        ("a private", address.is_private),
        ("a reserved", address.is_reserved),
        ("a shared (carrier-grade NAT)", address in ipaddress.ip_network("100.64.0.0/10")),
    ):
        if test:
            return f"{kind} address"
    return None


def receiver_refusal(
    url: str, *, resolver: Resolver | None = None, unresolved_ok: bool = True
) -> str | None:
    """Why ``url`` may not receive webhooks, or None. Every address its host resolves to
    is judged (one bad one refuses it: a resolver may hand out either). A host that does
    not resolve is let be when ``unresolved_ok`` (at save: nothing to judge yet; the send
    judges it again) and refused otherwise."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "it is not a URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "it is not an http(s) URL with a host"
    host = parts.hostname
    resolver = resolver or socket.getaddrinfo
    try:
        infos = resolver(
            host, port or (443 if parts.scheme == "https" else 80), 0, socket.SOCK_STREAM
        )
    except (OSError, UnicodeError):
        return None if unresolved_ok else f"its host {host} does not resolve"
    allowed = allowed_networks()
    for info in infos:
        try:
            address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        except ValueError:
            continue
        why = address_refusal(address, allowed)
        if why is not None:
            return (
                f"{host} is {why} ({address}): webhooks go out to receivers outside this "
                "network; PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS lists the networks that may "
                "be reached"
            )
    return None


def webhook_urls_refusal(urls: Sequence[str]) -> str | None:
    """The first of ``urls`` refused at save, as "webhook N: why", or None."""
    for i, url in enumerate(urls, start=1):
        why = receiver_refusal(url)
        if why is not None:
            return f"Webhook {i} is refused: {why}."
    return None


def receiver_check(url: str, *, resolver: Resolver | None = None) -> None:
    """Before a send: ReceiverRefused (as a class of failure) when ``url``'s host does
    not resolve or resolves to an address refused."""
    why = receiver_refusal(url, resolver=resolver, unresolved_ok=False)
    if why is None:
        return
    raise ReceiverRefused(
        "unreachable: the host does not resolve"
        if why.endswith("does not resolve")
        else "refused: the address is not allowed"
    )


def failure_class(error: BaseException) -> str:
    """A send's failure as its class (timeout, refused, TLS, unreachable): never the
    library's text, which quotes the URL."""
    if isinstance(error, ReceiverRefused):
        return str(error)
    if isinstance(error, requests.Timeout):
        return "timeout"
    if isinstance(error, requests.exceptions.SSLError):
        return "TLS error"
    if isinstance(error, requests.ConnectionError):
        text = str(error)
        if "Connection refused" in text or "ConnectionRefusedError" in text:
            return "connection refused"
        return "unreachable"
    return "request failed"


def status_class(status: int) -> str:
    """An answer that is not 2xx, as what it says of the receiver."""
    if 300 <= status < 400:
        return f"HTTP {status} (a redirect, not followed)"
    return f"HTTP {status}"
