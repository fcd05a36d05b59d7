"""The known-state store of the workers, kept in the SQLite state (``notifier.state``)."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence

import msgspec

from notifier.objects import Kind, KubeObject
from notifier.state.seen import SeenObjects, decode_object, encode_object
from notifier.workers.keys import WorkKey

log = logging.getLogger("notifier.service")


class DurableSeen:
    def __init__(self, seen: SeenObjects, kinds: Sequence[Kind]) -> None:
        self._seen = seen
        self._kinds = kinds

    def load_seen(self) -> Iterator[tuple[WorkKey, KubeObject]]:
        for kind in self._kinds:
            for key, record in self._seen.all_seen(kind).items():
                try:
                    yield WorkKey(kind, key), decode_object(record.encoded)
                except msgspec.DecodeError:
                    log.warning("unreadable saved state for %s/%s; treating it as new", kind, key)

    def save_seen(self, changes: list[tuple[WorkKey, KubeObject | None]]) -> None:
        for key, obj in changes:
            if obj is None:
                self._seen.forget_seen(key.kind, key.key)
            else:
                meta = obj.metadata
                self._seen.record_seen(
                    key.kind,
                    key.key,
                    uid=meta.uid,
                    resource_version=meta.resource_version,
                    encoded=encode_object(obj),
                )
