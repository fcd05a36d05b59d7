"""Which webhook failures are worth retrying, as ``SendError``s with bounded reasons.

Retryable: 408, 429 and 5xx (with their ``Retry-After``), timeouts,
refused or reset connections, TLS handshakes cut short. Permanent: every
other status (400, 401, 404, redirects, which are not followed) and a
certificate that does not verify. Details name the exception type and the
redacted target, never the URL itself (it may carry a token).
"""

from __future__ import annotations

import ssl

from urllib3 import exceptions as http_errors

from notifier.sinks.base import SendError
from notifier.sinks.retry_after import parse_retry_after

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
    """Map a urllib3 exception (raised with ``retries=False``) to a SendError."""
    reason, retryable = _classify(err)
    return SendError(reason, retryable=retryable, detail=f"{type(err).__name__} to {target}")


# Checked in order: NameResolutionError and NewConnectionError subclass ConnectTimeoutError.
_EXCEPTION_REASONS: tuple[tuple[type[Exception], str, bool], ...] = (
    (http_errors.NameResolutionError, "dns_error", True),
    (http_errors.NewConnectionError, "connection_error", True),
    (http_errors.ConnectTimeoutError, "connect_timeout", True),
    (http_errors.ReadTimeoutError, "timeout", True),
    (http_errors.LocationValueError, "bad_url", False),
)


def _classify(err: Exception) -> tuple[str, bool]:
    if isinstance(err, http_errors.SSLError):
        return ("tls_verify_failed", False) if _failed_verification(err) else ("tls_error", True)
    for kind, reason, retryable in _EXCEPTION_REASONS:
        if isinstance(err, kind):
            return reason, retryable
    return "connection_error", True  # resets, protocol errors: the request may not have arrived


def _failed_verification(err: BaseException) -> bool:
    cause: BaseException | None = err
    for _ in range(8):  # exception chains are short; the bound guards against cycles
        if cause is None:
            break
        if isinstance(cause, ssl.SSLCertVerificationError):
            return True
        cause = cause.__cause__ or cause.__context__
    return "CERTIFICATE_VERIFY_FAILED" in str(err)
