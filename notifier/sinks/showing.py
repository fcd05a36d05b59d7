"""A JSON body shown to a person (``rules test --explain``, ``sinks test``, the golden renders).

It is the JSON the receiver is sent, indented, with one difference: a
string that holds line breaks is shown a line at a time, each piece a JSON
string of its own ending in ``\\n`` and aligned under the first, so a
description or a log reads as the receiver shows it. Characters that would
hide or reorder text on a screen (bidirectional overrides, zero-width
marks) are shown escaped, as JSON escapes control characters.
"""

from __future__ import annotations

import json
import re
from typing import Any

_INDENT = "  "
_INVISIBLE = re.compile("[\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]")


def shown(body: Any) -> str:
    return _value(body, "", 0)


def _value(value: Any, pad: str, column: int) -> str:
    if isinstance(value, dict) and value:
        inner = pad + _INDENT
        items = [_field(str(key), item, inner) for key, item in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list | tuple) and value:
        inner = pad + _INDENT
        items = [f"{inner}{_value(item, inner, len(inner))}" for item in value]
        return "[\n" + ",\n".join(items) + f"\n{pad}]"
    if isinstance(value, str) and "\n" in value.rstrip("\n"):
        pieces = [_string(line + "\n") for line in value.split("\n")[:-1]]
        pieces.append(_string(value.rsplit("\n", 1)[1]))
        return ("\n" + " " * column).join(piece for piece in pieces if piece != '""')
    if isinstance(value, str):
        return _string(value)
    return json.dumps(value, ensure_ascii=False)


def _field(key: str, item: Any, pad: str) -> str:
    name = f"{_string(key)}: "
    return f"{pad}{name}{_value(item, pad, len(pad) + len(name))}"


def _string(text: str) -> str:
    encoded = json.dumps(text, ensure_ascii=False)
    return _INVISIBLE.sub(lambda found: f"\\u{ord(found[0]):04x}", encoded)
