"""Each alert POST is signed with its cluster's webhook secret, so that a receiver can
tell it from anyone else's POST and from one replayed later:

    X-Preemptlab-Timestamp: <unix seconds>
    X-Preemptlab-Signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>

the body being the exact bytes sent. A retry signs again with its own time. The secret
is generated when a cluster is defined (or set by staff), shown once, and kept to sign
with (README: Alerts, which verifies it in three lines)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

TIMESTAMP_HEADER = "X-Preemptlab-Timestamp"
SIGNATURE_HEADER = "X-Preemptlab-Signature"
# A receiver refuses a signature older than this (seconds), as verify() does.
TOLERANCE = 300
# The least a secret staff choose may hold.
SECRET_MIN_CHARS = 16


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def signature(secret: str, timestamp: int, body: bytes) -> str:
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"sha256={digest.hexdigest()}"


def signed_headers(secret: str, body: bytes, now: float | None = None) -> dict[str, str]:
    timestamp = int(time.time() if now is None else now)
    return {
        TIMESTAMP_HEADER: str(timestamp),
        SIGNATURE_HEADER: signature(secret, timestamp, body),
    }


def verify(
    secret: str, timestamp: str, body: bytes, given: str, *, now: float | None = None
) -> bool:
    """What a receiver does: the signature matches and is recent."""
    try:
        at = int(timestamp)
    except ValueError:
        return False
    if abs((time.time() if now is None else now) - at) > TOLERANCE:
        return False
    return hmac.compare_digest(signature(secret, at, body), given)
