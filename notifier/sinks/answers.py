"""What a receiver said when it refused a send, in its own words, as one bounded line.

Services put the reason of a 4xx in the answer's body: Telegram's
``{"ok": false, "description": "Bad Request: chat not found"}``, PagerDuty's
``{"message": "Event object is invalid", "errors": ["Invalid routing key"]}``,
Discord's ``{"message": "Unknown Webhook"}``, Google Chat's
``{"error": {"message": ...}}``, Slack's incoming webhooks a plain
``invalid_token``. ``said_in`` finds those words, so the FAILED line and the
log say why (the reason label stays ``http_400``). The answer is the
receiver's, so untrusted: control characters are taken out, it is cut to
``MAX_CHARS``, and an HTML page or a long body says nothing rather than
something a page or a proxy made up. A receiver may quote what it was sent
(``invalid routing key R0UT1NGkey``): a word of the answer that is part of a
secret we sent (``Sent``: the URL's path and query, the headers, a body key
named like a key or token) is shown as ``[redacted]``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import msgspec

from notifier.text import without_controls

MAX_CHARS = 200
# The keys services put their reason under, in the order they are the most telling.
_REASON_KEYS = ("description", "errors", "error_description", "error", "message", "detail")
_SECRET_KEY = re.compile(r"key|token|secret|password|auth", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z0-9_:.~+/=-]{6,}")
_SHORTEST_SECRET = 6


@dataclass(frozen=True, slots=True)
class Sent:
    """What a send sent, where a secret may be: read only when the receiver refused it."""

    url: str
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    def secrets(self) -> list[str]:
        parts = urlsplit(self.url)
        found = [*parts.path.split("/"), *(value for _, value in parse_qsl(parts.query))]
        found += self.headers.values()
        found += _secret_values(self.body)
        return [part for part in found if len(part) >= _SHORTEST_SECRET]


def said_in(body: bytes, sent: Sent | None = None) -> str:
    """The receiver's own words in ``body`` (JSON or a short plain line), or ""."""
    try:
        answer = msgspec.json.decode(body)
    except msgspec.DecodeError:
        words = _plain(body)
    else:
        words = _bounded(_words(answer, depth=0))
    return _redacted(words, sent.secrets()) if words and sent is not None else words


def _redacted(words: str, secrets: list[str]) -> str:
    def shown(match: re.Match[str]) -> str:
        word = match[0]
        kept = not any(word in secret or secret in word for secret in secrets)
        return word if kept else "[redacted]"

    return _WORD.sub(shown, words)


def _secret_values(body: bytes) -> list[str]:
    try:
        sent = msgspec.json.decode(body)
    except msgspec.DecodeError:
        return []
    if not isinstance(sent, dict):
        return []
    return [v for k, v in sent.items() if isinstance(v, str) and _SECRET_KEY.search(str(k))]


def _words(value: Any, *, depth: int) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "; ".join(filter(None, (_words(item, depth=depth + 1) for item in value[:5])))
    if not isinstance(value, dict) or depth > 2:
        return ""
    parts = [_words(value[key], depth=depth + 1) for key in _REASON_KEYS if key in value]
    return "; ".join(dict.fromkeys(part for part in parts if part))


def _plain(body: bytes) -> str:
    text = body.decode("utf-8", errors="replace").strip()
    if not text or "\n" in text or text.startswith("<") or len(text) > MAX_CHARS:
        return ""
    return _bounded(text)


def _bounded(text: str) -> str:
    text = " ".join(without_controls(text).split())
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"
