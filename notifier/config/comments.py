"""``channel: #ops``: YAML reads ``#ops`` as a comment, and the key as empty.

A value that starts with ``#`` must be quoted. Such a line passes YAML and
often validation too (the key is optional, or the error says it is missing,
which puzzles whoever sees ``#ops`` right there). ``comment_hints`` finds
each key left empty by a comment written straight after it with no space
(``#ops``, not ``# a note``), so the loader can say what happened.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from notifier.config.documents import Document, Position
from notifier.rules.config.problems import KeyPath

_EMPTY_KEY_THEN_COMMENT = re.compile(r"^\s*(?:-\s+)?[^\s#:][^:#]*:[ \t]+(#\S+)[ \t]*$")


@dataclass(frozen=True, slots=True)
class CommentHint:
    path: KeyPath
    where: Position

    def message(self, comment: str) -> str:
        key = self.path[-1]
        return (
            f"YAML reads {comment} as a comment, so {key} is empty; "
            f'quote a value that starts with #: {key}: "{comment}"'
        )


def comment_hints(text: str, document: Document) -> list[tuple[CommentHint, str]]:
    """Each empty key followed by a ``#word`` comment on its line, with that comment."""
    comments = {
        number: (match.start(1) + 1, match[1])
        for number, line in enumerate(text.splitlines(), start=1)
        if "#" in line and (match := _EMPTY_KEY_THEN_COMMENT.match(line))
    }
    if not comments:
        return []
    found = []
    for path, key in document.key_positions():
        if key.line not in comments or _value(document.data, path) is not None:
            continue
        column, comment = comments[key.line]
        found.append((CommentHint(path, Position(key.line, column)), comment))
    return found


def _value(data: Any, path: KeyPath) -> Any:
    for part in path:
        if not _holds(data, part):
            return "absent"
        data = data[part]
    return data


def _holds(data: Any, part: str | int) -> bool:
    if isinstance(data, dict):
        return part in data
    return isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data)
