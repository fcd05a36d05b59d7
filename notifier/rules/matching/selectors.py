"""Label selectors in kubectl syntax: ``app=web,tier!=cache``, ``env in (prod,staging)``, ``!key``.

``parse_selector`` compiles the text once (at config load) into a
``Selector``; ``Selector.matches(labels)`` is a handful of dict lookups.
Semantics follow Kubernetes: ``key!=v`` and ``key notin (...)`` also match
when the key is absent; an empty selector matches everything.

Keys are checked against the Kubernetes label-key syntax. Values are checked
against the label-value syntax unless ``free_values`` is set (annotation
values may hold anything but the selector's own separators).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

_NAME = r"[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_KEY = re.compile(rf"(?:[a-z0-9](?:[-a-z0-9.]{{0,251}}[a-z0-9])?/)?{_NAME}")
_LABEL_VALUE = re.compile(rf"(?:{_NAME})?")
_REQUIREMENT = re.compile(
    r"""\s*(?:
        !\s*(?P<absent>[^\s=!(),]+)
      | (?P<key>[^\s=!(),]+)\s*(?:
            (?P<op>==|=|!=)\s*(?P<value>[^\s=!(),]*)
          | \s(?P<setop>in|notin)\s*\((?P<values>[^()]*)\)
        )?
    )\s*""",
    re.VERBOSE,
)

SYNTAX = "key, !key, key=value, key!=value, key in (v1,v2) or key notin (v1,v2)"


class Operator(StrEnum):
    EXISTS = "exists"
    ABSENT = "absent"
    IN = "in"
    NOT_IN = "notin"


@dataclass(frozen=True, slots=True)
class Requirement:
    key: str
    operator: Operator
    values: frozenset[str] = frozenset()

    def matches(self, labels: Mapping[str, str]) -> bool:
        value = labels.get(self.key)
        if self.operator is Operator.EXISTS:
            return value is not None
        if self.operator is Operator.ABSENT:
            return value is None
        if self.operator is Operator.IN:
            return value in self.values
        return value not in self.values

    def __str__(self) -> str:
        if self.operator is Operator.EXISTS:
            return self.key
        if self.operator is Operator.ABSENT:
            return f"!{self.key}"
        return f"{self.key} {self.operator} ({','.join(sorted(self.values))})"


@dataclass(frozen=True, slots=True)
class Selector:
    requirements: tuple[Requirement, ...]
    text: str

    def matches(self, labels: Mapping[str, str]) -> bool:
        return all(requirement.matches(labels) for requirement in self.requirements)

    def failing(self, labels: Mapping[str, str]) -> Requirement | None:
        """The first requirement ``labels`` do not meet (for ``--explain``)."""
        return next((r for r in self.requirements if not r.matches(labels)), None)


def parse_selector(text: str, *, free_values: bool = False) -> Selector:
    """Compile ``text``; ``ValueError`` names the offending requirement and the syntax."""
    parts = [part for part in _split_top_level(text) if part.strip()]
    requirements = tuple(_parse_requirement(part, free_values) for part in parts)
    return Selector(requirements=requirements, text=text)


def _split_top_level(text: str) -> list[str]:
    """Split on commas outside parentheses: ``a in (x,y),b`` is two requirements."""
    parts, depth, start = [], 0, 0
    for position, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:position])
            start = position + 1
    parts.append(text[start:])
    return parts


def _parse_requirement(part: str, free_values: bool) -> Requirement:
    found = _REQUIREMENT.fullmatch(part)
    if found is None:
        raise ValueError(f"invalid selector requirement {part.strip()!r}: expected {SYNTAX}")
    if found["absent"] is not None:
        return Requirement(_checked_key(found["absent"]), Operator.ABSENT)
    key = _checked_key(found["key"])
    if found["op"] is not None:
        operator = Operator.NOT_IN if found["op"] == "!=" else Operator.IN
        return Requirement(key, operator, frozenset({_checked_value(found["value"], free_values)}))
    if found["setop"] is not None:
        values = [_checked_value(v.strip(), free_values) for v in found["values"].split(",")]
        return Requirement(key, Operator(found["setop"]), frozenset(values))
    return Requirement(key, Operator.EXISTS)


def _checked_key(key: str) -> str:
    if not _KEY.fullmatch(key):
        raise ValueError(f"invalid label key {key!r}: expected [prefix/]name, name up to 63 chars")
    return key


def _checked_value(value: str, free_values: bool) -> str:
    if not free_values and not _LABEL_VALUE.fullmatch(value):
        raise ValueError(
            f"invalid label value {value!r}: expected up to 63 letters, digits, '-', '_' or '.'"
        )
    return value
