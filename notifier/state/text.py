"""Text on its way into SQLite: anything a Python ``str`` can hold, stored without raising.

SQLite stores text as UTF-8, and a ``str`` may hold what UTF-8 cannot: a lone
surrogate (from a JSON ``"\\ud800"`` escape in a receiver's reply, or a
non-UTF-8 environment variable). Binding one raised ``UnicodeEncodeError``
inside the writer thread. Such characters are stored as U+FFFD instead.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

_SURROGATE = re.compile("[\ud800-\udfff]")


def storable(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def encoded(value: Any) -> bytes:
    """msgspec JSON of ``value``; strings UTF-8 cannot hold are stored as U+FFFD."""
    try:
        return msgspec.json.encode(value)
    except UnicodeEncodeError:
        return msgspec.json.encode(_cleaned(msgspec.to_builtins(value)))


def _cleaned(value: Any) -> Any:
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, dict):
        return {_cleaned(key): _cleaned(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_cleaned(item) for item in value]
    return value
