"""Where Slack thread roots are remembered: ``thread_key`` -> the ``ts`` of the first message.

``scope`` separates sinks and channels (``<sink>@<channel>``), so a config
change of channel starts new threads instead of replying into the old one.
``notifier.state`` provides the durable store; ``MemoryThreads`` serves
runs without a state database.
"""

from __future__ import annotations

import threading
from typing import Protocol


class ThreadStore(Protocol):
    def thread_ts(self, scope: str, thread_key: str) -> str | None: ...

    def remember_thread(self, scope: str, thread_key: str, ts: str) -> None: ...


class MemoryThreads:
    """Thread roots for this process only; lost on restart. Keeps the newest ``capacity``."""

    def __init__(self, capacity: int = 10_000) -> None:
        self._roots: dict[tuple[str, str], str] = {}
        self._capacity = capacity
        self._lock = threading.Lock()

    def thread_ts(self, scope: str, thread_key: str) -> str | None:
        with self._lock:
            return self._roots.get((scope, thread_key))

    def remember_thread(self, scope: str, thread_key: str, ts: str) -> None:
        with self._lock:
            self._roots[(scope, thread_key)] = ts
            if len(self._roots) > self._capacity:
                del self._roots[next(iter(self._roots))]  # dicts keep insertion order
