"""The API reads behind one notification's ``changes``: counted, capped, shared for a moment.

At most ``most`` requests per notification (``enrichment.changes.requests``):
past it, a read fails with the reason, which the message says. Answers about
what many notifications share (an owner's revisions, a ConfigMap, a Node, the
owner's Pods) are kept ``_KEEP_SECONDS`` in a ``ReadMemory`` (at most
``_MOST_BYTES`` in all), so a wave of Pods failing together costs the API
server one read of each; the failing Pod itself is always read fresh.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

import msgspec

from notifier.enrichment.failures import FetchError

METADATA_ONLY = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
MAX_ANSWER = 1 << 20  # one object, or one list of revisions or events
MAX_POD_LIST = 8 << 20  # the owner's Pods (at most ``POD_LIST_LIMIT``)
_KEEP_SECONDS = 10.0
_MOST_BYTES = 16 << 20

# (path, query, max bytes, Accept header or None) -> the answer's bytes, or FetchError
Getter = Callable[[str, dict[str, str], int, str | None], bytes]
T = TypeVar("T")


class ReadMemory:
    """Answers kept for a few seconds, shared by the notifications of one wave."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._kept: OrderedDict[str, tuple[float, bytes]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: str) -> bytes | None:
        with self._lock:
            found = self._kept.get(key)
            if found is None or self._clock() - found[0] > _KEEP_SECONDS:
                return None
            return found[1]

    def put(self, key: str, data: bytes) -> None:
        with self._lock:
            old = self._kept.pop(key, None)
            self._bytes -= len(old[1]) if old else 0
            self._kept[key] = (self._clock(), data)
            self._bytes += len(data)
            while self._bytes > _MOST_BYTES and self._kept:
                _, (_, dropped) = self._kept.popitem(last=False)
                self._bytes -= len(dropped)


class Reads:
    """One notification's reads: each through ``get``, at most ``most`` of them."""

    def __init__(self, get: Getter, memory: ReadMemory, most: int) -> None:
        self._get, self._memory, self._most = get, memory, most
        self.made = 0

    def read(
        self,
        path: str,
        query: dict[str, str],
        into: type[T],
        *,
        accept: str | None = None,
        shared: bool = True,
        max_bytes: int = MAX_ANSWER,
    ) -> T:
        key = f"{path}?{sorted(query.items())}#{accept}"
        data = self._memory.get(key) if shared else None
        if data is None:
            data = self._fetched(path, query, accept, max_bytes)
            if shared:
                self._memory.put(key, data)
        try:
            return msgspec.json.decode(data, type=into)
        except msgspec.DecodeError as err:
            raise FetchError(f"unreadable answer ({str(err)[:100]})") from None

    def _fetched(self, path: str, query: dict[str, str], accept: str | None, most: int) -> bytes:
        if self.made >= self._most:
            raise FetchError(
                f"skipped: {self._most} requests made already (enrichment.changes.requests)"
            )
        self.made += 1
        return self._get(path, query, most, accept)
