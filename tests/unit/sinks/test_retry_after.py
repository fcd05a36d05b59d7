from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime

import pytest

from notifier.sinks.retry_after import parse_retry_after

NOW = 1_700_000_000.0


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("3", 3.0),
        (" 120 ", 120.0),
        ("1.5", 1.5),
        ("-4", 0.0),
        (None, None),
        ("", None),
        ("soon", None),
    ],
)
def test_delta_seconds(header: str | None, seconds: float | None) -> None:
    assert parse_retry_after(header, now=NOW) == seconds


def test_http_date_is_seconds_from_now() -> None:
    header = format_datetime(datetime.fromtimestamp(NOW + 30, UTC), usegmt=True)

    assert parse_retry_after(header, now=NOW) == 30.0


def test_a_date_in_the_past_means_now() -> None:
    header = format_datetime(datetime.fromtimestamp(NOW - 30, UTC), usegmt=True)

    assert parse_retry_after(header, now=NOW) == 0.0
