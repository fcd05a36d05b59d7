"""Which webhook failures are worth retrying, as ``SendError``s with bounded reasons.

Retryable: 408, 425, 429 and 5xx (with their ``Retry-After``), timeouts,
refused or reset connections, TLS handshakes cut short. Permanent: every
other status (400, 401, 404, redirects, which are not followed), a
certificate that does not verify, a URL that cannot be posted to and a
header value with a line break in it.
Details name the exception type and the redacted target, never the URL
itself (it may carry a token).
"""

from __future__ import annotations

import socket
import ssl

from notifier.sinks.base import SendError
from notifier.sinks.retry_after import parse_retry_after
from notifier.sinks.webhook.http1 import InvalidHeaderError
from notifier.sinks.webhook.transport import BadUrlError, ConnectTimeoutError

_RETRYABLE_STATUSES = frozenset({408, 425, 429})


def failure_for_status(status: int, retry_after: str | None, *, now: float) -> SendError | None:
    """None for 2xx; otherwise the error to raise."""
    if 200 <= status < 300:
        return None
    reason = f"http_{status}" if 100 <= status < 600 else "http_other"
    if status in _RETRYABLE_STATUSES or status >= 500:
        wait = parse_retry_after(retry_after, now=now)
        return SendError(reason, retryable=True, retry_after=wait)
    return SendError(reason, retryable=False)


def failure_for_exception(err: Exception, target: str) -> SendError:
    """Map what the transport raised (``socket``, ``ssl``, ``http1``) to a SendError."""
    reason, retryable = _classify(err)
    return SendError(reason, retryable=retryable, detail=f"{type(err).__name__} to {target}")


# Checked in order: a certificate error is an SSLError, a connect timeout a TimeoutError.
_EXCEPTION_REASONS: tuple[tuple[type[Exception], str, bool], ...] = (
    (ssl.SSLCertVerificationError, "tls_verify_failed", False),
    (ssl.SSLError, "tls_error", True),
    (socket.gaierror, "dns_error", True),
    (ConnectTimeoutError, "connect_timeout", True),
    (TimeoutError, "timeout", True),
    (BadUrlError, "bad_url", False),
    (InvalidHeaderError, "bad_header", False),
)


def _classify(err: Exception) -> tuple[str, bool]:
    for kind, reason, retryable in _EXCEPTION_REASONS:
        if isinstance(err, kind):
            return reason, retryable
    return "connection_error", True  # resets, protocol errors: the request may not have arrived
