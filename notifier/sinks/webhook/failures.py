"""Which webhook failures are worth retrying, as ``SendError``s with bounded reasons.

Retryable: 408, 425, 429 and 5xx (with their ``Retry-After``), timeouts and
a send past its deadline, refused or reset connections, answers that are not
HTTP (a status line of ``2000``), proxy failures, TLS handshakes cut short.
Permanent: every other status (400, 401, 404, redirects, which are not
followed), a certificate that does not verify, a URL that cannot be posted
to and a header value with a line break in it.
Details say what happened in words ("connection refused", "no answer in
10 s", "TLS certificate not trusted": ``exchange`` words them) and the
redacted target, never the URL itself (it may carry a token); a refused send's
detail is what the receiver said, in its own words (``answers``).
"""

from __future__ import annotations

from notifier.sinks.answers import Sent, said_in
from notifier.sinks.base import SendError
from notifier.sinks.exchange import TransferError
from notifier.sinks.retry_after import parse_retry_after
from notifier.sinks.transport import BadUrlError, DeadlineExceededError, InvalidHeaderError

_RETRYABLE_STATUSES = frozenset({408, 425, 429})


def failure_for_status(
    status: int, retry_after: str | None, *, now: float, body: bytes = b"", sent: Sent | None = None
) -> SendError | None:
    """None for 2xx; otherwise the error to raise, with what the answer's ``body`` said
    (a secret of what was ``sent`` redacted)."""
    if 200 <= status < 300:
        return None
    reason = f"http_{status}" if 100 <= status < 600 else "http_other"
    said = said_in(body, sent)
    detail = f"the receiver said: {said}" if said else ""
    if status in _RETRYABLE_STATUSES or status >= 500:
        wait = parse_retry_after(retry_after, now=now)
        return SendError(reason, retryable=True, retry_after=wait, detail=detail)
    return SendError(reason, retryable=False, detail=detail)


def failure_for_exception(err: Exception, target: str) -> SendError:
    """Map what the transport raised (``exchange``'s errors, our own) to a SendError."""
    reason, retryable = _classify(err)
    return SendError(reason, retryable=retryable, detail=f"{_words(err)} ({target})")


def _words(err: Exception) -> str:
    """Our transport's errors are worded where they are raised; anything else by its kind."""
    if isinstance(err, TransferError | DeadlineExceededError | BadUrlError | InvalidHeaderError):
        return str(err) or type(err).__name__
    if isinstance(err, TimeoutError):
        return "no answer in time"
    return f"the connection failed ({type(err).__name__})"


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
