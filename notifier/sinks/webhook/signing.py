"""HMAC-SHA256 signatures of webhook bodies (documented in docs/delivery.md).

The signed bytes are ``timestamp + "." + body``: the Unix time in whole
seconds, as sent in ``X-Kube-Notifier-Timestamp``, a dot, then the exact
request body. The signature header is ``sha256=<lowercase hex>``. Binding
the timestamp lets receivers reject replays older than a few minutes.
"""

from __future__ import annotations

import hashlib
import hmac

SIGNATURE_HEADER = "X-Kube-Notifier-Signature"
TIMESTAMP_HEADER = "X-Kube-Notifier-Timestamp"


def sign(secret: bytes, timestamp: str, body: bytes) -> str:
    digest = hmac.new(secret, timestamp.encode("ascii") + b"." + body, hashlib.sha256)
    return f"sha256={digest.hexdigest()}"


def verify_signature(
    secret: bytes,
    *,
    timestamp: str,
    body: bytes,
    signature: str,
    now: float,
    tolerance_seconds: float = 300.0,
) -> bool:
    """What a receiver does: recompute, compare in constant time, reject stale timestamps."""
    try:
        age = abs(now - int(timestamp))
    except ValueError:
        return False
    return age <= tolerance_seconds and hmac.compare_digest(
        sign(secret, timestamp, body), signature
    )
