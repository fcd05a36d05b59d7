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

from notifier.sinks.base import SendError
from notifier.sinks.exchange import TransferError
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
    """Map what the transport raised (``exchange``'s errors, our own) to a SendError."""
    reason, retryable = _classify(err)
    return SendError(reason, retryable=retryable, detail=f"{type(err).__name__} to {target}")


_PERMANENT = frozenset({"tls_verify_failed"})
# Checked in order: a deadline is a TimeoutError.
_EXCEPTION_REASONS: tuple[tuple[type[Exception], str, bool], ...] = (
    (DeadlineExceededError, "deadline", True),
    (TimeoutError, "timeout", True),
    (BadUrlError, "bad_url", False),
    (InvalidHeaderError, "bad_header", False),
)


def _classify(err: Exception) -> tuple[str, bool]:
    if isinstance(err, TransferError):
        return err.reason, err.reason not in _PERMANENT
    for kind, reason, retryable in _EXCEPTION_REASONS:
        if isinstance(err, kind):
            return reason, retryable
    return "connection_error", True  # resets, protocol errors: the request may not have arrived
