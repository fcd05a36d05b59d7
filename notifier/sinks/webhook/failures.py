"""Which webhook failures are worth retrying, as ``SendError``s with bounded reasons.

Retryable: 408, 425, 429 and 5xx (with their ``Retry-After``), timeouts and
a send past its deadline, refused or reset connections, answers that are not
HTTP (a status line of ``2000``), proxy failures, TLS handshakes cut short.
Permanent: every other status (400, 401, 404, redirects, which are not
followed), a certificate that does not verify, a URL that cannot be posted
to and a header value with a line break in it.
Details name the exception type and the redacted target, never the URL
itself (it may carry a token).
"""

from __future__ import annotations

import ssl

import urllib3

from notifier.sinks.base import SendError
from notifier.sinks.retry_after import parse_retry_after
from notifier.sinks.transport import BadUrlError, DeadlineExceededError, InvalidHeaderError

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
    """Map what the transport raised (urllib3, ``ssl``, our own) to a SendError."""
    reason, retryable = _classify(err)
    return SendError(reason, retryable=retryable, detail=f"{type(err).__name__} to {target}")


# Checked in order: a certificate error is an SSLError, a deadline a TimeoutError.
_EXCEPTION_REASONS: tuple[tuple[type[Exception], str, bool], ...] = (
    (ssl.SSLCertVerificationError, "tls_verify_failed", False),
    (urllib3.exceptions.SSLError, "tls_error", True),
    (ssl.SSLError, "tls_error", True),
    (urllib3.exceptions.NameResolutionError, "dns_error", True),
    # Refused: urllib3 makes it a kind of ConnectTimeoutError, for its own history.
    (urllib3.exceptions.NewConnectionError, "connection_error", True),
    (urllib3.exceptions.ConnectTimeoutError, "connect_timeout", True),
    (DeadlineExceededError, "deadline", True),
    (urllib3.exceptions.TimeoutError, "timeout", True),
    (TimeoutError, "timeout", True),
    (urllib3.exceptions.ProxyError, "proxy_error", True),
    (BadUrlError, "bad_url", False),
    (InvalidHeaderError, "bad_header", False),
)


def _classify(err: Exception) -> tuple[str, bool]:
    if _certificate_refused(err):
        return "tls_verify_failed", False
    for kind, reason, retryable in _EXCEPTION_REASONS:
        if isinstance(err, kind):
            return reason, retryable
    return "connection_error", True  # resets, protocol errors: the request may not have arrived


def _certificate_refused(err: BaseException | None) -> bool:
    """urllib3 wraps the certificate error; look through its causes for it."""
    seen = 0
    while err is not None and seen < 5:
        if isinstance(err, ssl.SSLCertVerificationError):
            return True
        err, seen = err.__cause__ or err.__context__, seen + 1
    return False
