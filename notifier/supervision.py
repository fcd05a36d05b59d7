"""Long-lived threads: each survives what it expects, and one that dies shows in /healthz.

Every long-lived thread runs its body through ``supervised``. Its loop handles the
failures it expects (a sink that fails, a write that fails, a watch that
ends) and goes on. An exception it did not expect ends the thread: that is
logged with its traceback, counted in ``kube_notifier_thread_crashes_total``
and remembered here, and ``crashed()`` makes the liveness check fail, so the
kubelet restarts the pod rather than leaving a process that answers 200 and
does nothing (a dead state writer once stopped every delivery silently).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from prometheus_client import Counter

log = logging.getLogger("notifier.threads")

CRASHES = Counter(
    "kube_notifier_thread_crashes_total",
    "Long-lived threads ended by an exception they did not expect (liveness then fails).",
    ["thread"],
)

_crashed: dict[str, str] = {}
_lock = threading.Lock()


def supervised(
    name: str, target: Callable[..., object], *, family: str = ""
) -> Callable[..., None]:
    """``target`` as a thread's body whose unexpected exception is logged, counted and remembered.

    ``family`` is the metric label for threads started in numbers (``worker`` for
    ``worker-3``), so the label set stays bounded; it defaults to ``name``.
    """

    def run(*args: object) -> None:
        try:
            target(*args)
        except BaseException as exc:
            log.exception("thread %s died", name)
            CRASHES.labels(family or name).inc()
            with _lock:
                _crashed[name] = f"{type(exc).__name__}: {exc}"[:300]

    return run


def crashed() -> dict[str, str]:
    """Threads that died of an unexpected exception, with what it was."""
    with _lock:
        return dict(_crashed)


def forget_crashes() -> None:
    """For tests that start many services in one process."""
    with _lock:
        _crashed.clear()
