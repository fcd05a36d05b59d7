"""Name patterns for namespaces, object names and owner names.

One list mixes four forms, each an item::

    prod            exact name
    team-*          glob (``*``, ``?``, ``[abc]``)
    ~^ci-[0-9]+$    regex (also written ``regex:^ci-[0-9]+$``), matched against the whole name
    !kube-*         exclusion: any of the forms above behind ``!``

A name matches a ``NameFilter`` when it matches no exclusion and either the
list has no inclusions or the name matches one of them. Inclusions that are
all exact names are reported by ``exact_names`` so the ruleset can index the
rule by them.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True, slots=True)
class NamePattern:
    text: str
    exact: str | None  # set for an exact name, else ``regex`` is
    regex: re.Pattern[str] | None

    def matches(self, name: str) -> bool:
        if self.exact is not None:
            return name == self.exact
        assert self.regex is not None
        return self.regex.fullmatch(name) is not None


def parse_pattern(text: str) -> NamePattern:
    """Compile one pattern; ``ValueError`` names a regex that does not compile."""
    for prefix in ("regex:", "~"):
        if text.startswith(prefix):
            return NamePattern(text, None, _compiled(text[len(prefix) :], text))
    if _GLOB_CHARS.intersection(text):
        return NamePattern(text, None, _compiled(fnmatch.translate(text), text))
    return NamePattern(text, text, None)


def _compiled(source: str, text: str) -> re.Pattern[str]:
    try:
        return re.compile(source)
    except re.error as exc:
        raise ValueError(f"invalid regex {text!r}: {exc}") from None


_MEMO_LIMIT = 4096  # distinct names remembered per filter; namespaces are few, pod names not


@dataclass(frozen=True, slots=True)
class NameFilter:
    include_exact: frozenset[str]
    include_patterns: tuple[NamePattern, ...]
    exclude: tuple[NamePattern, ...]
    text: tuple[str, ...]
    # Answers already computed: a regex per rule per transition adds up over 1,000 rules.
    # Shared by threads; a lost update only costs a recomputation.
    memo: dict[str, bool] = field(default_factory=dict, compare=False, repr=False)

    @property
    def is_empty(self) -> bool:
        return not self.text

    def matches(self, name: str) -> bool:
        known = self.memo.get(name)
        if known is None:
            if len(self.memo) >= _MEMO_LIMIT:
                self.memo.clear()
            known = self.memo[name] = self._computed(name)
        return known

    def _computed(self, name: str) -> bool:
        if any(pattern.matches(name) for pattern in self.exclude):
            return False
        if not self.include_exact and not self.include_patterns:
            return True
        return name in self.include_exact or any(p.matches(name) for p in self.include_patterns)

    def exact_names(self) -> frozenset[str] | None:
        """The only names this filter can match, when they are all spelled out; else None."""
        if self.include_exact and not self.include_patterns:
            return self.include_exact
        return None


def parse_filter(items: Iterable[str]) -> NameFilter:
    """Compile a pattern list; raises ``PatternError`` listing every bad item by position."""
    include_exact: set[str] = set()
    include_patterns: list[NamePattern] = []
    exclude: list[NamePattern] = []
    errors: list[tuple[int, str]] = []
    texts = tuple(items)
    for position, text in enumerate(texts):
        try:
            pattern = parse_pattern(text.removeprefix("!"))
        except ValueError as exc:
            errors.append((position, str(exc)))
            continue
        if text.startswith("!"):
            exclude.append(pattern)
        elif pattern.exact is not None:
            include_exact.add(pattern.exact)
        else:
            include_patterns.append(pattern)
    if errors:
        raise PatternError(errors)
    return NameFilter(frozenset(include_exact), tuple(include_patterns), tuple(exclude), texts)


class PatternError(ValueError):
    """Bad items of one pattern list, as (position in the list, message)."""

    def __init__(self, errors: list[tuple[int, str]]) -> None:
        super().__init__("; ".join(message for _, message in errors))
        self.errors = errors
