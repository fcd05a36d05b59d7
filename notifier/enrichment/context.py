"""What was fetched for one notification: plain values, already redacted and bounded."""

from __future__ import annotations

from dataclasses import dataclass

from notifier.enrichment.changes import Changes


@dataclass(frozen=True, slots=True)
class ContainerLog:
    container: str
    previous: bool  # the instance before this one (a crash loop's last crash)
    lines: tuple[str, ...]
    truncated: bool = False  # more was there than the line or byte bound let through


@dataclass(frozen=True, slots=True)
class WarningEvent:
    reason: str
    message: str
    count: int
    last_seen: str


@dataclass(frozen=True, slots=True)
class Context:
    logs: tuple[ContainerLog, ...] = ()
    events: tuple[WarningEvent, ...] = ()
    owners: tuple[str, ...] = ()  # "ReplicaSet/web-7d9f", "Deployment/web": nearest first
    problems: tuple[str, ...] = ()  # what could not be fetched, and why: said in the message
    fetched_ms: int = 0
    changes: Changes | None = None  # what changed before the trouble (``enrich: [changes]``)

    def __bool__(self) -> bool:
        return bool(self.logs or self.events or self.owners or self.problems or self.changes)
