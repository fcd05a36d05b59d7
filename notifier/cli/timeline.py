"""``kube-notifier rules timeline``: what the rules do with an object's states over time.

``rules timeline FILE STATE...`` plays states of objects (``kubectl get -o
yaml`` output; ``FILE@TIME``, ``TIME`` an offset such as ``15m`` or an RFC
3339 time) through the rules as the service would, with a clock that jumps
from one due time to the next, and prints the timeline: what was told and
when, what became pending (``for:``) and when it would fire, what was
cancelled, flapping, escalated, reminded and resolved, and when an incident
began recovering, was in trouble again, and ended. A file with several
documents (or a ``kind: List``) gives one state per object, ``--every``
apart. After the last state the clock runs ``--until`` longer.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import msgspec
import yaml

from notifier.cli.rules_inputs import TextTimes, kube_object, load_for_test
from notifier.kinds.registry import Kinds
from notifier.notifications import Notification
from notifier.objects import KubeObject, key_of, kind_of, timestamp
from notifier.origin import Origin
from notifier.rules.config.durations import parse_duration
from notifier.rules.engine import RulesEngine
from notifier.rules.incidents.resolving import Firing, ObjectId
from notifier.rules.ruleset import Ruleset
from notifier.templating.environment import format_duration
from notifier.transitions.detecting import detect
from notifier.transitions.model import Transition

_MAX_TICKS = 10_000  # a clock that keeps finding work is cut short, not looped on


@dataclass(frozen=True, slots=True)
class State:
    at: float
    obj: KubeObject


def run_timeline(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    loaded = load_for_test(args.file, out)
    if loaded is None:
        return 1
    try:
        every, until = parse_duration(args.every), parse_duration(args.until)
        states = list(read_states(args.states, every, known=loaded.kinds))
    except (OSError, ValueError, yaml.YAMLError, msgspec.ValidationError) as exc:
        print(f"error: {exc}", file=out)
        return 1
    play(loaded.ruleset, states, until, out)
    return 0


def read_states(specs: Sequence[str], every: float, *, known: Kinds) -> Iterator[State]:
    """The states in order given; an offset counts from the first state's time."""
    at, first = 0.0, None
    for spec in specs:
        path, _, when = spec.rpartition("@") if "@" in spec else (spec, "", "")
        if when:
            dated = timestamp(when) if "T" in when else None
            at = dated if dated is not None else (first or 0.0) + parse_duration(when)
        first = at if first is None else first
        for obj in _objects(Path(path), known):
            yield State(at, obj)
            at += every
        at -= every


def _objects(path: Path, known: Kinds) -> Iterator[KubeObject]:
    for document in yaml.load_all(path.read_text(encoding="utf-8"), Loader=TextTimes):
        items = document.get("items") if isinstance(document, dict) else None
        for data in items if document.get("kind") == "List" and items else [document]:
            yield kube_object(data, path, known=known)


def play(ruleset: Ruleset, states: Sequence[State], until: float, out: TextIO) -> None:
    start = states[0].at
    incidents = _Incidents()
    engine = RulesEngine(lambda: ruleset, clock=lambda: start, firings=incidents)
    timeline = _Timeline(ruleset, start, out, incidents)
    last: dict[tuple[str, str], KubeObject] = {}
    for state in sorted(states, key=lambda s: s.at):
        timeline.run_clock(engine, state.at)
        where = (str(kind_of(state.obj)), str(key_of(state.obj)))
        transition = detect(
            last.get(where), state.obj, origin=Origin.LIVE, observed_at=state.at,
            correlation_id="timeline",
        )  # fmt: skip
        last[where] = state.obj
        timeline.transition(state.at, transition, engine)
    timeline.run_clock(engine, states[-1].at + until)


class _Incidents:
    """The rules' incidents as they change: recovering, in trouble again, over (a ``Firings``
    store that keeps nothing, only says what it was told since it was last read)."""

    def __init__(self) -> None:
        self.changes: list[tuple[Firing, bool]] = []  # (the incident, over?)
        self._recovering: dict[tuple[str, ObjectId], float | None] = {}

    def all_firing(self) -> list[Firing]:
        return []

    def fire(self, firing: Firing) -> None:
        where = (firing.rule, firing.object_id)
        if self._recovering.get(where) != firing.recovering_since:
            self.changes.append((firing, False))
        self._recovering[where] = firing.recovering_since

    def resolve(self, firing: Firing) -> None:
        self._recovering.pop((firing.rule, firing.object_id), None)
        self.changes.append((firing, True))

    def read(self) -> list[tuple[Firing, bool]]:
        changes, self.changes = self.changes, []
        return changes


class _Timeline:
    def __init__(self, ruleset: Ruleset, start: float, out: TextIO, incidents: _Incidents) -> None:
        self._rules = {rule.name: rule for rule in ruleset.rules}
        self._incidents = incidents
        self._start = start
        self._out = out
        self._firing: set[tuple[str, str]] = set()  # (rule, object key)
        self._flapping: set[tuple[str, str]] = set()  # told as flapping, not yet steady

    def run_clock(self, engine: RulesEngine, until: float) -> None:
        for _ in range(_MAX_TICKS):
            due = engine.next_due()
            if due is None or due > until:
                return
            released = engine.tick(due)
            engine.forget(released)
            for line in self._told_by_clock(released.notifications):
                self._say(due, line)
            for line in self._incident_lines():
                self._say(due, line)

    def transition(self, at: float, transition: Transition | None, engine: RulesEngine) -> None:
        if transition is None:
            self._say(at, "no change a rule could see")
            return
        before = ", ".join(sorted(transition.old_states)) or str(transition.event)
        after = ", ".join(sorted(transition.new_states)) or "gone"
        self._say(at, f"{transition.kind} {transition.key}: {before} -> {after}")
        decision = engine.decide(transition, now=at)
        for rule, reason in decision.suppressed:
            self._say(at, "  " + self._why(rule, reason, at))
        flapping = {rule for rule, reason in decision.suppressed if reason.startswith("flapping:")}
        for (rule, key, resolves), sinks in _by_rule(decision.notifications).items():
            verb = "resolved" if resolves else "flapping" if rule in flapping else "tells"
            if verb == "flapping":
                self._flapping.add((rule, key))
            self._mark(rule, key, firing=verb == "tells")
            self._say(at, f"  {verb}: {rule} -> {', '.join(sinks)}")
        for line in self._incident_lines():
            self._say(at, "  " + line)

    def _incident_lines(self) -> Iterator[str]:
        """What the incidents did since last asked (an end a resolution told is not said
        twice)."""
        for firing, over in self._incidents.read():
            rule = self._rules.get(firing.rule)
            if over and (rule is None or not rule.send_resolved):
                yield f"incident over: {firing.rule} (nothing to tell: no send_resolved)"
            elif not over and firing.due_at is not None:
                ends = self._clock(firing.due_at)
                yield f"recovering: {firing.rule} (incident over at {ends} if it stays so)"
            elif not over:
                yield f"in trouble again: {firing.rule} (the same incident)"

    def _why(self, rule: str, reason: str, at: float) -> str:
        if reason.startswith("pending:"):
            left = _left(reason, self._rules[rule].hold_for or 0.0)
            return f"pending: {rule} (fires at {self._clock(at + left)} if it stays)"
        if reason == "pending_cancelled":
            return f"cancelled: {rule} (left before its for:)"
        if reason.startswith("flapping:"):
            return f"{reason.split(':', maxsplit=1)[0]}: {rule} ({reason.split(': ', 1)[1]})"
        return f"quiet: {rule or 'all'} ({reason})"

    def _told_by_clock(self, notifications: list[Notification]) -> Iterator[str]:
        for (rule, key, resolves), sinks in _by_rule(notifications).items():
            if resolves and (rule, key) in self._flapping:
                verb = "steady again (no longer flapping)"
                self._flapping.discard((rule, key))
            elif resolves:
                verb = "resolved"  # its incident's recovery window ran out
            elif (rule, key) not in self._firing:
                verb = "fires"
            elif not set(sinks) <= set(self._rules[rule].sinks):
                verb = "escalates"
            else:
                verb = "reminds"
            self._mark(rule, key, firing=not resolves)
            yield f"{verb}: {rule} -> {', '.join(sinks)}"

    def _mark(self, rule: str, key: str, *, firing: bool) -> None:
        (self._firing.add if firing else self._firing.discard)((rule, key))

    def _say(self, at: float, text: str) -> None:
        print(f"{self._clock(at):>8}  {text}", file=self._out)

    def _clock(self, at: float) -> str:
        return "+" + format_duration(at - self._start)


def _by_rule(notifications: list[Notification]) -> dict[tuple[str, str, bool], list[str]]:
    """(rule, object, resolution?) -> the sinks told, in order."""
    grouped: dict[tuple[str, str, bool], list[str]] = {}
    for told in notifications:
        grouped.setdefault((told.rule, told.ordering_key, told.resolves), []).append(told.sink)
    return grouped


def _left(reason: str, hold: float) -> float:
    """How long a timer waits, from its reason ("pending: tells in 5m if it stays"): less than
    ``hold`` when it goes on from a stay a blip cut (``rules/timing/stays.py``)."""
    wait = reason.removeprefix("pending: tells in ").split(" ")[0]
    return hold if wait == format_duration(hold) else parse_duration(wait)
