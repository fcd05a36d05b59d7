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

Regexes run on RE2 (``google-re2``), whose time is linear in the name: a
pattern such as ``(a+)+$`` met by a long name froze the whole service on
Python's backtracking engine. RE2 has no backreferences or lookaround; a
pattern that needs them is refused at load with RE2's reason. Globs stay on
``re``: ``fnmatch`` translates them without nested repetition.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

import re2

_GLOB_CHARS = frozenset("*?[")
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # the reason is in our error; not on stderr as well


class PatternMatch(Protocol):
    def fullmatch(self, text: str) -> object | None: ...


@dataclass(frozen=True, slots=True)
class NamePattern:
    text: str
    exact: str | None  # set for an exact name, else ``regex`` is
    regex: PatternMatch | None

    def matches(self, name: str) -> bool:
        if self.exact is not None:
            return name == self.exact
        assert self.regex is not None
        return self.regex.fullmatch(name) is not None


def parse_pattern(text: str) -> NamePattern:
    """Compile one pattern; ``ValueError`` names a regex that does not compile."""
    for prefix in ("regex:", "~"):
        if text.startswith(prefix):
            return NamePattern(text, None, _linear(text[len(prefix) :], text))
    if _GLOB_CHARS.intersection(text):
        return NamePattern(text, None, _glob(text))
    return NamePattern(text, text, None)


def _linear(source: str, text: str) -> PatternMatch:
    try:
        compiled: PatternMatch = re2.compile(source, _RE2_OPTIONS)
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
        hint = " (RE2 syntax: no backreferences or lookaround)"
        raise ValueError(f"invalid regex {text!r}: {reason}{hint}") from None
    return compiled


def _glob(text: str) -> PatternMatch:
    try:
        return re.compile(fnmatch.translate(text))
    except re.error as exc:
        raise ValueError(f"invalid glob {text!r}: {exc}") from None


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
    texts = tuple(items)
    if not texts:  # most lists of most rules: one filter, that lets every name through
        return _EVERY_NAME
    include_exact: set[str] = set()
    include_patterns: list[NamePattern] = []
    exclude: list[NamePattern] = []
    errors: list[tuple[int, str]] = []
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


_EVERY_NAME = NameFilter(frozenset(), (), (), ())


class PatternError(ValueError):
    """Bad items of one pattern list, as (position in the list, message)."""

    def __init__(self, errors: list[tuple[int, str]]) -> None:
        super().__init__("; ".join(message for _, message in errors))
        self.errors = errors
