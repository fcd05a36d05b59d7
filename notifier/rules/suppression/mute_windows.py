"""Mute windows: named times when the rules that list them send nothing.

A window is a list of intervals and is active when any interval is. An
interval holds when every constraint it sets holds: ``start``/``end``
(absolute RFC 3339 times), ``weekdays`` and ``times`` (``22:00-06:00`` runs
past midnight), read in the interval's ``timezone``.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, time

from notifier.rules.config.specs import WEEKDAYS, MuteIntervalSpec, as_timestamp


@dataclass(frozen=True, slots=True)
class MuteInterval:
    start: float | None
    end: float | None
    weekdays: frozenset[int]  # 0 = Monday, as datetime.weekday()
    times: tuple[tuple[time, time], ...]
    zone: zoneinfo.ZoneInfo

    def holds(self, now: float) -> bool:
        if self.start is not None and now < self.start:
            return False
        if self.end is not None and now >= self.end:
            return False
        if not self.weekdays and not self.times:
            return True
        local = datetime.fromtimestamp(now, self.zone)
        if self.weekdays and local.weekday() not in self.weekdays:
            return False
        return not self.times or any(_within(local.time(), *span) for span in self.times)


def _within(moment: time, start: time, end: time) -> bool:
    if start <= end:
        return start <= moment < end
    return moment >= start or moment < end


@dataclass(frozen=True, slots=True)
class MuteWindow:
    name: str
    intervals: tuple[MuteInterval, ...]

    def active(self, now: float) -> bool:
        return any(interval.holds(now) for interval in self.intervals)


def compile_window(name: str, specs: Sequence[MuteIntervalSpec]) -> MuteWindow:
    return MuteWindow(name, tuple(_interval(spec) for spec in specs))


def _interval(spec: MuteIntervalSpec) -> MuteInterval:
    return MuteInterval(
        start=as_timestamp(spec.start),
        end=as_timestamp(spec.end),
        weekdays=frozenset(WEEKDAYS.index(day) for day in spec.weekdays),
        times=tuple((span.start, span.end) for span in spec.times),
        zone=zoneinfo.ZoneInfo(spec.timezone),
    )
