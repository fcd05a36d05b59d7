from __future__ import annotations

import msgspec
import pytest

from notifier.enrichment.config import EnrichmentConfig
from notifier.enrichment.reading import EventList, last_lines, newest_warnings
from notifier.enrichment.redaction import Redactor

REDACT = Redactor.build(())


def test_last_lines_keeps_the_end_within_lines_and_bytes() -> None:
    raw = "\n".join(f"line {n}" for n in range(10)).encode()
    assert last_lines(raw, 3, 4096, REDACT) == (("line 7", "line 8", "line 9"), True)
    assert last_lines(raw, 20, 14, REDACT) == (("line 8", "line 9"), True)
    assert last_lines(b"only\n", 5, 4096, REDACT) == (("only",), False)


def test_a_long_line_is_cut_and_bad_bytes_and_controls_do_not_pass() -> None:
    (line,), _ = last_lines(b"\xff\x1b[2J" + b"a" * 900, 5, 4096, REDACT)
    assert line.startswith("\ufffda") and "\x1b" not in line and line.endswith("… (401 more)")


def test_a_secret_is_redacted_before_the_line_is_cut() -> None:
    raw = b"x" * 495 + b" password=hunter2-and-more"
    (line,), _ = last_lines(raw, 5, 4096, REDACT)
    assert "hunter" not in line


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("DB_PASSWORD=hunter2 next", "DB_PASSWORD=[REDACTED] next"),
        ('{"client_secret": "abc"}', '{"client_secret": "[REDACTED]"}'),
        (
            "curl -H 'Authorization: Bearer abcdefghijk'",
            "curl -H 'Authorization: Bearer [REDACTED]'",
        ),
        ("aws AKIAIOSFODNN7EXAMPLE", "aws [REDACTED]"),
        ("jwt eyJhbGciOiJIUzI1.eyJzdWIiOiIx.abcdefghijklmn", "jwt [REDACTED]"),
        ("-----BEGIN RSA PRIVATE KEY----- MIIE", "[REDACTED]"),
        ("dsn postgres://app:pw@db:5432/x", "dsn [REDACTED-URL-CREDENTIALS]@db:5432/x"),
        ("nothing to hide here", "nothing to hide here"),
    ],
)
def test_default_redactions(line: str, shown: str) -> None:
    assert REDACT(line) == shown


def test_configured_patterns_add_to_the_defaults_or_replace_them() -> None:
    mine = Redactor.build([(r"card (\d{4})\d{8}(\d{4})", r"card \1…\2")], defaults=False)
    assert mine("card 1234567812345678 password=x") == "card 1234…5678 password=x"


def test_a_pattern_re2_refuses_fails_at_load_with_its_reason() -> None:
    with pytest.raises(ValueError, match="invalid redaction pattern"):
        EnrichmentConfig.model_validate({"redact": [{"pattern": r"(a)\1"}]})


def test_warnings_newest_first_counting_series() -> None:
    assert newest_warnings(EventList(items=[]), 5) == ()
    raw = b"""{"items": [
      {"reason": "A", "message": "a", "count": 2, "lastTimestamp": "2026-01-01T00:00:00Z"},
      {"reason": "B", "message": "b", "series": {"count": 7,
       "lastObservedTime": "2026-01-03T00:00:00Z"}, "eventTime": "2026-01-02T00:00:00Z"},
      {"reason": "C", "message": "c", "eventTime": "2026-01-02T00:00:00Z"}]}"""
    events = newest_warnings(msgspec.json.decode(raw, type=EventList), 2)
    assert [(e.reason, e.count) for e in events] == [("B", 7), ("C", 1)]
