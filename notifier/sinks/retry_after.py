"""Reading an HTTP ``Retry-After`` header: delta-seconds or an HTTP-date.

Returns seconds from ``now`` (never negative), or None when the header is
absent or unreadable. Capping absurd values is the delivery stage's job.
"""

from __future__ import annotations

from email.utils import parsedate_to_datetime


def parse_retry_after(value: str | None, *, now: float) -> float | None:
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # HTTP-dates are GMT by definition
        return None
    return max(0.0, when.timestamp() - now)
