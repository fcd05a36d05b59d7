"""``${VAR}`` references in config values, expanded from the environment at load.

Forms (as in POSIX shells and Docker Compose, plus one conditional)::

    ${VAR}            the value; an error if VAR is unset
    ${VAR:-default}   default if VAR is unset or empty   (${VAR-default}: only if unset)
    ${VAR:+word}      word if VAR is set and not empty, else nothing
    ${VAR:+word:-other}  word if VAR is set and not empty, else other
    ${VAR:?message}   an error saying message if VAR is unset or empty
    $$                a literal $

Words may hold references themselves (``${A:-${B}}``). Only ``${`` starts
a reference: a lone ``$`` stays as it is. Errors are ``ExpansionError``
naming the variable; the loader adds the location.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPERATORS = (":-", ":+", ":?", "-", "+", "?")


class ExpansionError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Expansion:
    value: str
    used: bool  # at least one ${...} was expanded


def expand(text: str, environ: Mapping[str, str]) -> Expansion:
    """``text`` with every reference replaced, or ``ExpansionError``."""
    expander = _Expander(text, environ)
    value, _ = expander.run(0, stops=())
    return Expansion(value, expander.used)


class _Expander:
    def __init__(self, text: str, environ: Mapping[str, str]) -> None:
        self._text = text
        self._environ = environ
        self.used = False

    def run(self, start: int, stops: tuple[str, ...]) -> tuple[str, int]:
        """Expand from ``start`` to the first of ``stops`` (outside references) or the end."""
        text, position = self._text, start
        out: list[str] = []
        while position < len(text):
            if any(text.startswith(stop, position) for stop in stops):
                return "".join(out), position
            if text.startswith("$$", position):
                out.append("$")
                position += 2
            elif text.startswith("${", position):
                value, position = self._reference(position + 2)
                out.append(value)
            else:
                out.append(text[position])
                position += 1
        if stops:
            raise ExpansionError(f"unclosed reference in {text!r}: expected '}}'")
        return "".join(out), position

    def _reference(self, start: int) -> tuple[str, int]:
        """Expand the reference whose name starts at ``start``; returns the position after it."""
        found = _NAME.match(self._text, start)
        if found is None:
            raise ExpansionError(f"invalid reference in {self._text!r}: expected ${{NAME}}")
        name, position = found.group(), found.end()
        operator = next((op for op in _OPERATORS if self._text.startswith(op, position)), "")
        if not operator and not self._text.startswith("}", position):
            raise ExpansionError(f"invalid reference in {self._text!r}: expected '}}' after {name}")
        self.used = True
        value = self._environ.get(name)
        if operator in (":+", "+"):
            return self._conditional(
                name, value, operator, position + 2 if operator == ":+" else position + 1
            )
        word, position = (
            self.run(position + len(operator), stops=("}",)) if operator else ("", position)
        )
        return _resolve(name, value, operator, word), position + 1

    def _conditional(
        self, name: str, value: str | None, operator: str, start: int
    ) -> tuple[str, int]:
        present = bool(value) if operator == ":+" else value is not None
        when_set, position = self.run(start, stops=("}", ":-"))
        otherwise = ""
        if self._text.startswith(":-", position):
            otherwise, position = self.run(position + 2, stops=("}",))
        return (when_set if present else otherwise), position + 1


def _resolve(name: str, value: str | None, operator: str, word: str) -> str:
    missing = not value if operator.startswith(":") else value is None
    if not operator and value is None:
        raise ExpansionError(
            f"environment variable {name} is not set (write ${{{name}:-default}} to give a default)"
        )
    if operator in (":?", "?") and missing:
        raise ExpansionError(f"environment variable {name}: {word or 'is not set'}")
    if operator in (":-", "-") and missing:
        return word
    return value or ""
