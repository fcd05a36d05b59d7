"""Text from objects, made safe to show: control characters out.

Object content (names, labels, annotations, container messages, reasons) is
written by whoever can edit the object. Shown as is, it could ping a whole
Slack channel (``<!channel>``), hide a link behind other words
(``<http://evil|Click>``) or drive a terminal (ANSI escapes, BEL).

- ``without_controls``: drops ANSI escape sequences, control characters
  other than tab and newline, and the bidirectional overrides and isolates
  (U+202A-U+202E, U+2066-U+2069) that make text read backwards.

Each receiver escapes the rest for its own markup (Slack's in
``sinks/slack/blocks.py``, Markdown in ``sinks/chat.py``, HTML in
``sinks/email/messages.py``).
"""

from __future__ import annotations

import re

_ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-_])")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def without_controls(text: str) -> str:
    if not _CONTROLS.search(text):
        return text
    return _CONTROLS.sub("", _ANSI.sub("", text))
