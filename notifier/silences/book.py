"""Silences, as ``amtool silence``: matchers, a time span, a comment; applied at once.

A silence mutes every rule's notification about a transition all of whose
matchers hold, between ``starts_at`` and ``ends_at``. Matchers are
``key=value`` pairs: ``namespace``, ``name``, ``rule`` and ``reason`` take
the rules' name patterns (``web-*``, ``~^ci-[0-9]+$``, ``!kube-*``);
``kind`` is exact; ``label:<key>`` is the object's label, exact. The list
lives in a ConfigMap every replica watches (``silences/watching.py``) and the
CLI and the page edit (``silences/writing.py``: a ``NewSilence`` asked for,
through the ``SilenceWrites`` the root hands the page); this module is pure.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import msgspec

from notifier.rules.matching.patterns import NameFilter, PatternError, parse_filter
from notifier.rules.matching.probing import Probe

PATTERN_KEYS = ("namespace", "name", "rule", "reason")
EXACT_KEYS = ("kind",)
MAX_SILENCES = 1000
SILENCES_KEY = "silences.json"  # the key of the ConfigMap that holds them


class SilenceError(ValueError):
    """A silence that cannot be used; the message says which and why."""


class Silence(msgspec.Struct, frozen=True, kw_only=True):
    """One silence as stored (JSON) and shown."""

    id: str
    matchers: dict[str, str]
    starts_at: float
    ends_at: float
    comment: str = ""
    created_by: str = ""

    def active(self, now: float) -> bool:
        return self.starts_at <= now < self.ends_at


@dataclass(frozen=True, slots=True)
class _Compiled:
    silence: Silence
    patterns: tuple[tuple[str, NameFilter], ...]
    exact: tuple[tuple[str, str], ...]

    def matches(self, probe: Probe, rule: str) -> bool:
        for key, wanted in self.exact:
            if _exact_value(key, probe) != wanted:
                return False
        return all(names.matches(_pattern_value(key, probe, rule)) for key, names in self.patterns)


def parse_matchers(text: str) -> dict[str, str]:
    """``namespace=payments,kind=Pod`` as a dict; SilenceError naming a bad pair."""
    matchers: dict[str, str] = {}
    for pair in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = pair.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not value:
            raise SilenceError(f"{pair!r}: write key=value")
        matchers[key] = value
    compile_silence(Silence(id="-", matchers=matchers, starts_at=0, ends_at=1))
    return matchers


def compile_silence(silence: Silence) -> _Compiled:
    if not silence.matchers:
        raise SilenceError(f"silence {silence.id}: no matchers (it would mute everything)")
    patterns, exact = [], []
    for key, value in silence.matchers.items():
        if key in PATTERN_KEYS:
            try:
                patterns.append((key, parse_filter([value])))
            except PatternError as err:
                raise SilenceError(f"silence {silence.id}: {key}={value!r}: {err}") from None
        elif key in EXACT_KEYS or key.startswith("label:"):
            exact.append((key, value))
        else:
            known = ", ".join((*PATTERN_KEYS, *EXACT_KEYS, "label:<key>"))
            raise SilenceError(f"silence {silence.id}: unknown matcher {key!r} ({known})")
    return _Compiled(silence, tuple(patterns), tuple(exact))


def _exact_value(key: str, probe: Probe) -> str:
    if key == "kind":
        return str(probe.transition.kind)
    return probe.obj.metadata.labels.get(key.removeprefix("label:"), "")


def _pattern_value(key: str, probe: Probe, rule: str) -> str:
    if key == "reason":
        return probe.reason  # the kind's facts: computed only for a silence that asks
    meta = probe.obj.metadata
    values: Mapping[str, str] = {"namespace": meta.namespace, "name": meta.name, "rule": rule}
    return values[key]


class SilenceWriteError(Exception):
    """A silence could not be written; the message says why (shown on the page)."""


@dataclass(frozen=True, slots=True)
class NewSilence:
    matchers: dict[str, str]
    seconds: float
    comment: str
    author: str


@dataclass(frozen=True, slots=True)
class SilenceWrites:
    add: Callable[[NewSilence], str]  # the new silence's id
    expire: Callable[[str], None]


class SilenceBook:
    """The silences in force: replaced whole when their ConfigMap changes. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._compiled: tuple[_Compiled, ...] = ()

    def replace(self, silences: Sequence[Silence]) -> list[str]:
        """Use these from now on; returns the problems of those left out."""
        kept, problems = [], []
        for silence in silences[:MAX_SILENCES]:
            try:
                kept.append(compile_silence(silence))
            except SilenceError as err:
                problems.append(str(err))
        if len(silences) > MAX_SILENCES:
            problems.append(f"{len(silences) - MAX_SILENCES} silences past {MAX_SILENCES} ignored")
        with self._lock:
            self._compiled = tuple(kept)
        return problems

    def silenced_by(self, probe: Probe, rule: str, now: float) -> str | None:
        """The id of an active silence muting ``rule``'s notification of ``probe``, if any."""
        with self._lock:
            compiled = self._compiled
        for entry in compiled:
            if entry.silence.active(now) and entry.matches(probe, rule):
                return entry.silence.id
        return None

    def all(self) -> list[Silence]:
        with self._lock:
            return [entry.silence for entry in self._compiled]


SILENCES_DECODER = msgspec.json.Decoder(list[Silence])
