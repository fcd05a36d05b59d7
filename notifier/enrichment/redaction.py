"""Redaction of log lines before they leave the cluster: RE2 patterns, linear in the line.

The defaults catch what logs leak most (``password=...``, ``Authorization:
Bearer ...``, cloud access keys, JWTs, private key blocks); a config adds
its own. A line is redacted whole before it is cut to fit, so a secret is
never half shown.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import re2

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False
REDACTED = "[REDACTED]"
DEFAULT_REDACTIONS: tuple[tuple[str, str], ...] = (
    (
        r"(?i)((?:password|passwd|pwd|secret|token|api[-_]?key|access[-_]?key|client[-_]?secret)"
        r"[\"']?\s*[:=]\s*[\"']?)[^\s\"',;&]+",
        rf"\1{REDACTED}",
    ),
    (r"(?i)(authorization:\s*|bearer\s+|basic\s+)[A-Za-z0-9._~+/=-]{8,}", rf"\1{REDACTED}"),
    (r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", REDACTED),
    (r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", REDACTED),
    (r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*", REDACTED),
    (r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s@/]+@", r"[REDACTED-URL-CREDENTIALS]@"),
)


def check_pattern(pattern: str) -> None:
    """``ValueError`` with RE2's reason when ``pattern`` does not compile."""
    try:
        re2.compile(pattern, options=_OPTIONS)
    except re2.error as err:
        raise ValueError(f"invalid redaction pattern {pattern!r}: {err}") from None


_GROUP_REFERENCE = re.compile(r"\\(\d{1,2})|\\g<(\w+)>")


def expander(replacement: str) -> Callable[[Any], str]:
    """``\\1`` / ``\\g<name>`` filled from a match, the rest as written.

    Ours, not the RE2 module's ``sub`` string form: that one garbles
    characters beyond ASCII in the replacement (``…`` came out as ``â\\x80¦``).
    """
    pieces: list[tuple[str, int | str | None]] = []  # (text as written, group after it)
    at = 0
    for found in _GROUP_REFERENCE.finditer(replacement):
        number, name = found.groups()
        group = int(number) if number else int(name) if name.isdigit() else name
        pieces.append((replacement[at : found.start()], group))
        at = found.end()
    pieces.append((replacement[at:], None))

    def expand(match: Any) -> str:
        return "".join(
            text + ("" if group is None else match.group(group) or "") for text, group in pieces
        )

    return expand


@dataclass(frozen=True, slots=True)
class Redactor:
    rules: tuple[tuple[Any, Callable[[Any], str]], ...]

    @classmethod
    def build(cls, extra: Iterable[tuple[str, str]], *, defaults: bool = True) -> Redactor:
        pairs = [*(DEFAULT_REDACTIONS if defaults else ()), *extra]
        return cls(tuple((re2.compile(p, options=_OPTIONS), expander(r)) for p, r in pairs))

    def __call__(self, line: str) -> str:
        for pattern, replacement in self.rules:
            line = pattern.sub(replacement, line)
        return line
