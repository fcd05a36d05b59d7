"""Reading what the API answered into the bounded, redacted values a message shows."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from notifier.enrichment.context import WarningEvent
from notifier.text import without_controls

_MAX_LINE = 500  # characters of one log line
_MAX_EVENT_MESSAGE = 300


class _Meta(msgspec.Struct, rename="camel"):
    owner_references: list[_OwnerRef] = []


class _OwnerRef(msgspec.Struct):
    kind: str = ""
    name: str = ""
    controller: bool = False


class OwnedObject(msgspec.Struct):
    metadata: _Meta = msgspec.field(default_factory=_Meta)

    def controller(self) -> tuple[str, str] | None:
        ref = next((r for r in self.metadata.owner_references if r.controller), None)
        return None if ref is None else (ref.kind, ref.name)


class _Event(msgspec.Struct, rename="camel"):
    reason: str = ""
    message: str = ""
    count: int = 0
    last_timestamp: str | None = None
    event_time: str | None = None
    series: _Series | None = None


class _Series(msgspec.Struct, rename="camel"):
    count: int = 0
    last_observed_time: str | None = None


class EventList(msgspec.Struct):
    items: list[_Event] = []


def newest_warnings(listed: EventList, most: int) -> tuple[WarningEvent, ...]:
    """The ``most`` most recently seen events, newest first, text made safe."""
    events = [_warning(event) for event in listed.items]
    events.sort(key=lambda event: event.last_seen, reverse=True)
    return tuple(events[:most])


def _warning(event: _Event) -> WarningEvent:
    series = event.series
    last = (series.last_observed_time if series else None) or event.last_timestamp
    count = max(event.count, series.count if series else 0, 1)
    message = without_controls(event.message)[:_MAX_EVENT_MESSAGE]
    return WarningEvent(
        without_controls(event.reason), message, count, last or event.event_time or ""
    )


def last_lines(
    raw: bytes, most: int, max_bytes: int, redact: Callable[[str], str]
) -> tuple[tuple[str, ...], bool]:
    """The last ``most`` lines within ``max_bytes``, each redacted whole, then cut; truncated?"""
    lines = raw.decode("utf-8", errors="replace").splitlines()
    truncated = len(lines) > most
    kept: list[str] = []
    size = 0
    for line in reversed(lines[-most:]):
        shown = _cut(redact(without_controls(line)))
        size += len(shown.encode()) + 1
        if size > max_bytes:
            truncated = True
            break
        kept.append(shown)
    return tuple(reversed(kept)), truncated or len(raw) > max_bytes * 4


def _cut(line: str) -> str:
    return line if len(line) <= _MAX_LINE else f"{line[:_MAX_LINE]}… ({len(line) - _MAX_LINE} more)"
