"""Which Slack failures are worth retrying, as ``SendError``s with bounded reasons.

Retryable: HTTP 429 or ``ratelimited`` (with ``Retry-After``, 1 s if Slack
sent none), HTTP 5xx and Slack's own transient errors; failures below HTTP
(timeouts, the deadline, refused connections) are classified as the webhook
sink's are, since both send through the same transport. Permanent: everything
else, notably ``channel_not_found``,
``invalid_auth``, ``not_in_channel`` and other 4xx. The reason is Slack's
error code when it is one we know, so metric labels stay bounded.
"""

from __future__ import annotations

from collections.abc import Mapping

from notifier.sinks.base import SendError
from notifier.sinks.retry_after import parse_retry_after

_RATE_LIMITED = frozenset({"ratelimited", "rate_limited"})
_TRANSIENT = frozenset(
    {"internal_error", "fatal_error", "service_unavailable", "request_timeout", "timeout"}
)
_KNOWN = frozenset(
    {
        "account_inactive",
        "action_prohibited",
        "channel_is_archived",
        "channel_not_found",
        "invalid_auth",
        "invalid_blocks",
        "invalid_payload",
        "invalid_token",
        "is_archived",
        "missing_scope",
        "msg_too_long",
        "no_service",
        "no_text",
        "not_authed",
        "not_in_channel",
        "posting_to_general_channel_denied",
        "restricted_action",
        "team_access_not_granted",
        "token_expired",
        "token_revoked",
        "too_many_attachments",
        "user_not_found",
    }
    | _TRANSIENT
)
_DEFAULT_RATE_LIMIT_WAIT = 1.0


def failure_for_response(
    status: int, error: str, headers: Mapping[str, str], *, now: float
) -> SendError:
    """The error for a response that was not ``ok``; ``error`` is Slack's code or body."""
    code = error.strip()
    if status == 429 or code in _RATE_LIMITED:
        wait = parse_retry_after(_header(headers, "Retry-After"), now=now)
        return SendError(
            "rate_limited", retryable=True, retry_after=wait or _DEFAULT_RATE_LIMIT_WAIT
        )
    if status >= 500:
        return SendError(f"http_{min(status, 599)}", retryable=True, detail=code[:200])
    if code in _TRANSIENT:
        return SendError(code, retryable=True)
    if code in _KNOWN:
        return SendError(code, retryable=False)
    reason = f"http_{status}" if status != 200 else "slack_error"
    return SendError(reason, retryable=False, detail=code[:200])


def _header(headers: Mapping[str, str], name: str) -> str | None:
    wanted = name.lower()
    return next((value for key, value in headers.items() if key.lower() == wanted), None)
