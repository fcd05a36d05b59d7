"""Compiling a rule's ``match:`` into a ``Matcher``, checking every word and pattern.

Problems are added with the key path of the offending item
(``rules[3].match.to[1]``). State and signal names are checked against the
vocabulary of the kinds the rule names (all kinds when it names none): a
name must exist for at least one of them, and ``from`` takes states only,
since signals exist only in the transition that carries them.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import NamedTuple

from notifier.kinds.registry import Kinds
from notifier.objects import Kind
from notifier.origin import Origin
from notifier.rules.config.problems import KeyPath, RuleProblems
from notifier.rules.config.specs import MatchSpec
from notifier.rules.matching.patterns import NameFilter, PatternError, parse_filter
from notifier.rules.matching.predicates import (
    AnnotationsMatch,
    ChangedFields,
    EventIs,
    KindIs,
    LabelsMatch,
    LeavesFrom,
    Matcher,
    NameIn,
    NamespaceIn,
    NamespaceLabelsMatch,
    NotOptedOut,
    OriginIn,
    OwnerIs,
    Predicate,
    Reaches,
    ReasonIn,
)
from notifier.rules.matching.selectors import Selector, parse_selector
from notifier.suggestions import Suggesting

_EVERY_ORIGIN = frozenset(Origin)


class Vocabulary(NamedTuple):
    """The words a rule naming some kinds may use: every name, the states, the signals."""

    names: frozenset[str]
    states: frozenset[str]
    signals: frozenset[str]


@functools.lru_cache(maxsize=256)
def vocabulary(registry: Kinds, kinds: frozenset[Kind]) -> Vocabulary:
    """The words of ``kinds``, made once per set of kinds (20,000 rules share a few)."""
    return Vocabulary(
        names=frozenset().union(*(registry.names_for(kind) for kind in kinds)),
        states=frozenset().union(*(registry.states_for(kind) for kind in kinds)),
        signals=frozenset().union(*(registry.signals_for(kind) for kind in kinds)),
    )


CompiledMatch = tuple[Matcher, frozenset[Kind], frozenset[str] | None]


def match_key(match: MatchSpec) -> tuple[object, ...]:
    """``match``'s settings as one value: the rules that match alike can share one matcher.

    A ``match:`` with nothing set (most rules of a large file leave it out) has every
    default, so its key is the one of ``MatchSpec()``, made once."""
    if not match.model_fields_set:
        return _default_key()
    return _key(match)


@functools.cache
def _default_key() -> tuple[object, ...]:
    return _key(MatchSpec())


def _key(match: MatchSpec) -> tuple[object, ...]:
    owner = match.owner  # a model holding a list: as its values
    values = [
        tuple(value) if type(value) is list else value
        for key, value in match.__dict__.items()
        if key != "owner"
    ]
    return (*values, None if owner is None else (owner.kind, tuple(owner.name)))


class MatchCompiler:
    def __init__(self, problems: RuleProblems, path: KeyPath, kinds: Kinds) -> None:
        self._problems = problems
        self._path = path
        self._kinds = kinds

    def compile(
        self, match: MatchSpec, *, origins: frozenset[Origin], opt_out_annotation: str | None
    ) -> CompiledMatch:
        """The matcher, the kinds and the exact namespaces (None: any) to index it by."""
        every = self._kinds.all
        kinds = self._known(match.kinds, every) or every
        namespaces = self._names(match.namespaces, ("namespaces",))
        candidates: list[Predicate | None] = [
            KindIs(kinds) if kinds != every else None,
            self._reaches(match.to, kinds),
            EventIs(frozenset(match.events)) if match.events else None,
            self._leaves(match.from_states, kinds),
            NamespaceIn(namespaces) if not namespaces.is_empty else None,
            self._name_in(match.names),
            self._reason_in(match.reasons),
            ChangedFields(tuple(match.changed_fields)) if match.changed_fields else None,
            self._selector(match.labels, "labels", LabelsMatch),
            self._selector(match.annotations, "annotations", AnnotationsMatch, free=True),
            self._owner(match),
            self._selector(match.namespace_selector, "namespace_selector", NamespaceLabelsMatch),
            NotOptedOut(opt_out_annotation) if opt_out_annotation else None,
            OriginIn(origins) if origins != _EVERY_ORIGIN else None,
        ]
        predicates = tuple(p for p in candidates if p is not None)
        if match.hold_for is not None:
            self._timed(match.to, kinds)
        return Matcher(predicates), kinds, namespaces.exact_names()

    def _timed(self, names: Sequence[str], kinds: frozenset[Kind]) -> None:
        """``for:`` times a state: it needs ``to:`` states (a signal holds for no time)."""
        if not names:
            message = "'for' needs 'to': the states the object must stay in that long"
            self._problems.add((*self._path, "for"), message)
        words = vocabulary(self._kinds, kinds)
        for position, name in enumerate(names):
            if name in words.signals and name not in words.states:
                message = f"{name!r} is a signal, not a state: 'for' can only time states"
                self._problems.add((*self._path, "to", position), message)

    def _known(self, kinds: Sequence[Kind], every: frozenset[Kind]) -> frozenset[Kind]:
        """The kinds named that are known; each unknown one is a problem."""
        for position, kind in enumerate(kinds):
            if kind not in every:
                self._problems.add((*self._path, "kinds", position), unknown_kind(kind, every))
        return frozenset(kinds) & every

    def _name_in(self, names: Sequence[str]) -> Predicate | None:
        compiled = self._names(names, ("names",))
        return None if compiled.is_empty else NameIn(compiled)

    def _reason_in(self, reasons: Sequence[str]) -> Predicate | None:
        compiled = self._names(reasons, ("reasons",))
        return None if compiled.is_empty else ReasonIn(compiled)

    def _owner(self, match: MatchSpec) -> Predicate | None:
        if match.owner is None:
            return None
        names = self._names(match.owner.name, ("owner", "name"))
        return OwnerIs(match.owner.kind, names)

    def _names(self, items: Sequence[str], keys: tuple[str, ...]) -> NameFilter:
        try:
            return parse_filter(items)
        except PatternError as exc:
            for position, message in exc.errors:
                self._problems.add((*self._path, *keys, position), message)
        return parse_filter(())

    def _selector(
        self,
        text: str | None,
        key: str,
        predicate: type[LabelsMatch] | type[AnnotationsMatch] | type[NamespaceLabelsMatch],
        *,
        free: bool = False,
    ) -> Predicate | None:
        if text is None:
            return None
        try:
            selector: Selector = parse_selector(text, free_values=free)
        except ValueError as exc:
            self._problems.add((*self._path, key), str(exc))
            return None
        return predicate(selector)

    def _reaches(self, names: Sequence[str], kinds: frozenset[Kind]) -> Predicate | None:
        if not names:
            return None
        self._check_words(names, "to", kinds, vocabulary(self._kinds, kinds).names)
        return Reaches(frozenset(names))

    def _leaves(self, names: Sequence[str], kinds: frozenset[Kind]) -> Predicate | None:
        if not names:
            return None
        words = vocabulary(self._kinds, kinds)
        known, signals = words.states, words.signals
        for position, name in enumerate(names):
            if name in signals and name not in known:
                message = f"{name!r} is a signal, not a state: signals can be matched in 'to' only"
                self._problems.add((*self._path, "from", position), message)
            elif name not in known:
                unknown = _unknown_word(name, kinds, known, "state")
                self._problems.add((*self._path, "from", position), unknown)
        return LeavesFrom(frozenset(names))

    def _check_words(
        self, names: Sequence[str], key: str, kinds: frozenset[Kind], known: frozenset[str]
    ) -> None:
        for position, name in enumerate(names):
            if name not in known:
                message = _unknown_word(name, kinds, known, "state or signal")
                self._problems.add((*self._path, key, position), message)


def _unknown_word(
    name: str, kinds: frozenset[Kind], known: frozenset[str], what: str
) -> Suggesting:
    words, listed = _listed(known)
    kind_text = "/".join(_listed(kinds)[0])
    return Suggesting(
        f"unknown {what} {name!r} for {kind_text}", name, words,
        f"; expected one of: {listed or 'none'}",
    )  # fmt: skip


@functools.lru_cache(maxsize=256)
def _listed(words: frozenset[str]) -> tuple[tuple[str, ...], str]:
    """``words`` in order, and as a list to read: made once per set (the rules naming the
    same kinds share it, and each error of a 20,000-rule file says it)."""
    ordered = tuple(sorted(words))
    return ordered, ", ".join(ordered)


def unknown_kind(kind: str, every: frozenset[Kind]) -> Suggesting:
    names, listed = _kind_names(every)
    return Suggesting(
        f"unknown kind '{kind}'", kind, names,
        f"; expected one of: {listed}, or a custom resource's kind declared under watch.resources",
    )  # fmt: skip


@functools.lru_cache(maxsize=64)
def _kind_names(kinds: frozenset[Kind]) -> tuple[tuple[str, ...], str]:
    return _listed(frozenset(kind.value for kind in kinds))
