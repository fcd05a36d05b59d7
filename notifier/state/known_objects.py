"""The known-state store of the workers, kept in the SQLite state (``notifier.state``)."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator, Sequence

import msgspec

from notifier.kinds.registry import Kinds
from notifier.objects import Kind, KubeObject
from notifier.source.trimming import trim
from notifier.state.seen import SeenObjects, SeenRecord, encode_object
from notifier.workers.keys import WorkKey
from notifier.workers.known import Known

log = logging.getLogger("notifier.service")


class DurableSeen:
    def __init__(self, seen: SeenObjects, kinds: Sequence[Kind], *, known: Kinds) -> None:
        self._seen = seen
        self._kinds = kinds
        self._known = known

    def load_seen(self) -> Iterator[tuple[WorkKey, KubeObject]]:
        """Saved objects, trimmed and shared as the cache's are (an object decoded alone
        holds its own copy of every string: ~4.2 KB a Pod against ~1.4 KB shared)."""
        for kind in self._kinds:
            for key, record in self._seen.iter_seen(kind):
                try:
                    yield WorkKey(kind, key), trim(self._known.decode_object(record.encoded))
                except msgspec.DecodeError:
                    log.warning("unreadable saved state for %s/%s; treating it as new", kind, key)

    def has_baseline(self) -> bool:
        return self._seen.baseline_at() is not None

    def mark_baseline(self, scopes: Iterable[str]) -> None:
        self._seen.mark_baseline(time.time(), scopes)

    def baselines(self) -> frozenset[str]:
        return self._seen.baselines()

    def forget_baseline(self, scope: str) -> None:
        self._seen.forget_baseline(scope)

    def save_seen(self, changes: list[tuple[WorkKey, KubeObject | None]]) -> None:
        """One write for the batch (a worker's keys, or a scope's forgotten ones)."""
        self._seen.write_all([(key.kind, key.key, _record(obj)) for key, obj in changes])


def _record(obj: KubeObject | None) -> SeenRecord | None:
    if obj is None:
        return None
    meta = obj.metadata
    return SeenRecord(meta.uid, meta.resource_version, encode_object(obj))


def log_baseline(known: Known, *, with_state: bool) -> None:
    """Say at start whether the initial list is the baseline (quiet) or compared with state."""
    if not with_state:
        log.info("no state database: every start is a first start (the initial list is quiet)")
    elif known.first_start:
        log.info(
            "first start with this state database: the initial list is the baseline, told only"
            " when it changes (%d objects saved by an earlier start that did not finish it)",
            len(known),
        )
    else:
        log.info(
            "saved state: %d objects acted on before; what changed, appeared or went away"
            " meanwhile is told as catch-up",
            len(known),
        )
