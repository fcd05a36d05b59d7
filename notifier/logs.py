"""Logging: JSON lines when not on a terminal, readable text on one; secrets redacted.

Redaction happens in the formatter, on the final text, so a token that
reaches a log line by any path (an exception message, a URL in an error)
is masked before it is written.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from typing import Any

_SECRETS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"xox[abposr]-[A-Za-z0-9-]+"), "***"),  # Slack tokens
    (re.compile(r"(hooks\.slack\.com/services/)[A-Za-z0-9/]+"), r"\1***"),
    (re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+"), r"\1***"),
    (
        re.compile(
            r"(?i)((?:token|secret|password|signing_key|hmac_key)[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+"
        ),
        r"\1***",
    ),
    (re.compile(r"(https?://[^/\s:@]+:)[^@\s]+@"), r"\1***@"),  # user:password@host
]


def redact(text: str) -> str:
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for field in ("correlation_id", "rule", "sink", "kind", "key"):
            if (value := getattr(record, field, None)) is not None:
                entry[field] = value
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return redact(json.dumps(entry, default=str))


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)-7s %(name)s: %(message)s", "%H:%M:%S")

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def setup_logging(level: str, fmt: str) -> None:
    use_json = fmt == "json" or (fmt == "auto" and not sys.stderr.isatty())
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if use_json else TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.getLogger("urllib3").setLevel(logging.ERROR)  # its retries are ours to report
