"""``FiringBoard``: what was told and still holds, and what ended lately, for the Now view.

Fed with every decision (as the decision ring is), on the workers' threads:
a rule that sent a notification about an object that reached states (a
crash loop, a failed Job; those of the rule's ``to:`` when it names some, as
``send_resolved`` counts them) makes a firing entry, with the notification
each sink was handed last; one a silence kept from sending makes (or marks)
an entry muted, with the silence's id, so what is silenced and still firing
stays in view; a later transition of that object in which none of those states holds, or its
deletion, moves it to the recently resolved. Notifications of signals alone
(a restart counted) leave nothing firing. Memory for this process only
(since it started; what ``send_resolved`` rules told before a restart is
seeded from their saved memory, without its notifications), bounded: past
``max_objects`` objects the oldest is forgotten, and ``resolved_kept``
resolutions are kept.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import partial

from notifier.api.page.views import FiringItem, Told
from notifier.api.paged import Paged, Where
from notifier.objects import EventType
from notifier.rules.decisions import Decision
from notifier.rules.matching.probing import EvalContext, Probe
from notifier.silences.book import Silence, compile_silence
from notifier.transitions.model import Transition

MAX_OBJECTS = 10_000
RESOLVED_KEPT = 500

_ObjectId = tuple[str, str]  # kind, key
_SILENCED = "silenced by "  # a suppression's reason: ``rules/quieting.py``


@dataclass(slots=True)
class _Object:
    transition: Transition | None  # the latest, for a silence's preview; None: from before
    rules: dict[str, FiringItem]


Targets = Callable[[str], frozenset[str]]  # a rule's ``to:`` states (empty: any reached)


def _any(_rule: str) -> frozenset[str]:
    return frozenset()


class FiringBoard:
    def __init__(
        self,
        targets: Targets = _any,
        *,
        max_objects: int = MAX_OBJECTS,
        resolved_kept: int = RESOLVED_KEPT,
    ) -> None:
        self._targets = targets
        self._lock = threading.Lock()
        self._objects: dict[_ObjectId, _Object] = {}
        self._resolved: deque[FiringItem] = deque(maxlen=resolved_kept)
        self._max = max_objects

    def record(self, transition: Transition, decision: Decision) -> None:
        where = (transition.kind.value, str(transition.key))
        with self._lock:
            entry = self._objects.get(where)
            if entry is not None:
                entry.transition = transition
                self._resolve(where, entry, transition)
            if transition.event is EventType.DELETED:
                return
            if decision.notifications:
                self._fire(where, transition, decision)
            for rule, reason in decision.suppressed:
                if reason.startswith(_SILENCED):
                    self._mute(where, transition, rule, reason.removeprefix(_SILENCED))

    def seed(self, items: Iterable[FiringItem]) -> None:
        """What a previous process told and is not over (``send_resolved`` rules' memory)."""
        with self._lock:
            for item in items:
                where = (
                    item.kind,
                    f"{item.namespace}/{item.name}" if item.namespace else item.name,
                )
                entry = self._objects.setdefault(where, _Object(None, {}))
                entry.rules.setdefault(item.rule, item)
            self._forget_oldest()

    def _resolve(self, where: _ObjectId, entry: _Object, transition: Transition) -> None:
        deleted = transition.event is EventType.DELETED
        for rule, item in list(entry.rules.items()):
            if deleted or not set(item.states) & transition.new_states:
                del entry.rules[rule]
                self._resolved.append(replace(item, resolved_at=transition.observed_at))
        if not entry.rules:
            del self._objects[where]

    def _fire(self, where: _ObjectId, transition: Transition, decision: Decision) -> None:
        for note in decision.notifications:
            told = Told(note.sink, note.id)
            self._hold(where, transition, note.rule, partial(_told, told=told))

    def _mute(self, where: _ObjectId, transition: Transition, rule: str, silence: str) -> None:
        self._hold(where, transition, rule, lambda item: replace(item, muted_by=silence))

    def _hold(
        self,
        where: _ObjectId,
        transition: Transition,
        rule: str,
        change: Callable[[FiringItem], FiringItem],
    ) -> None:
        entry = self._objects.get(where)
        item = entry.rules.get(rule) if entry else None
        wanted = self._targets(rule)
        reached = transition.reached & transition.new_states
        states = reached & wanted if wanted else reached
        if item is None and not states:
            return  # a signal alone: nothing holds
        if entry is None:
            entry = self._objects[where] = _Object(transition, {})
            self._forget_oldest()
        entry.rules[rule] = change(_held(item, transition, rule, states))

    def _forget_oldest(self) -> None:
        while len(self._objects) > self._max:
            del self._objects[next(iter(self._objects))]

    def firing(self, where: Where, offset: int, limit: int) -> Paged[FiringItem]:
        items = [item for item in self._items() if _within(item, where)]
        items.sort(key=lambda item: item.since, reverse=True)
        offset = max(0, offset)
        return Paged(items[offset : offset + max(0, limit)], len(items), offset, limit)

    def resolved(self, where: Where, limit: int) -> list[FiringItem]:
        with self._lock:
            items = list(self._resolved)
        return [item for item in reversed(items) if _within(item, where)][:limit]

    def preview(self, matchers: dict[str, str], limit: int) -> Paged[FiringItem]:
        """What firing now a silence of ``matchers`` would mute (SilenceError if it is bad)."""
        compiled = compile_silence(Silence(id="preview", matchers=matchers, starts_at=0, ends_at=1))
        context = EvalContext(now=time.time())
        with self._lock:
            objects = [(e.transition, list(e.rules.values())) for e in self._objects.values()]
        hits: list[FiringItem] = []
        for transition, items in objects:
            if transition is None:
                continue  # seen by a previous process only: its labels are not known here
            probe = Probe(transition, context)
            hits.extend(item for item in items if compiled.matches(probe, item.rule))
        return Paged(hits[:limit], len(hits), 0, limit)

    def _items(self) -> list[FiringItem]:
        with self._lock:
            return [item for entry in self._objects.values() for item in entry.rules.values()]


def _held(
    item: FiringItem | None, transition: Transition, rule: str, reached: frozenset[str]
) -> FiringItem:
    """The entry as this transition leaves it: new, or with the states that still hold."""
    if item is None:
        meta = transition.obj.metadata
        return FiringItem(
            rule=rule,
            kind=transition.kind.value,
            namespace=meta.namespace,
            name=meta.name,
            states=tuple(sorted(reached)),
            since=transition.observed_at,
            told=(),
        )
    return replace(item, states=tuple(sorted(set(item.states) & transition.new_states | reached)))


def _told(item: FiringItem, told: Told) -> FiringItem:
    """Told (again) to ``told.sink``: its latest notification replaces the one before; no
    longer muted."""
    others = tuple(t for t in item.told if t.sink != told.sink)
    return replace(item, told=(*others, told), muted_by="")


def _within(item: FiringItem, where: Where) -> bool:
    return (
        (not where.namespace or item.namespace == where.namespace)
        and (not where.kind or item.kind == where.kind)
        and (not where.rule or item.rule == where.rule)
    )
