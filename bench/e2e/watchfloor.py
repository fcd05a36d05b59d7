"""The watch floor: when each churn change reaches a bare watcher, the least any notifier waits.

During every trial a spawned process watches the churn Pods (label
selector ``bench=1``) over its own connection, parses each event just
enough to read the Pod and its ``seq`` label, and stamps its arrival with
``time.monotonic()``. Subtracting the send time gives the control plane's
own part of the latency (write, watch cache, fan-out, on a machine it
shares); subtracting this arrival from the webhook's gives the part the
subject adds (decode, decide, render, deliver). On a saturated 2-core
machine the first can be seconds, which the second tells apart.

The watch starts from the resourceVersion of a list made when the process
starts (before the churn's first patch), resumes from the last one seen if
the API server ends it (it closes watchers it finds slow), and stops once
the churn has ended and no churn event came for ``QUIET`` seconds, or
``CAP`` seconds after the end.
"""

from __future__ import annotations

import contextlib
import json
import math
import threading
import time
import urllib.parse
from collections.abc import Iterable

from bench.e2e import phases
from bench.e2e.api import ApiConnection, Endpoint
from bench.e2e.fleet import CHURN_LABEL, SEQ_LABEL
from bench.e2e.scoring import Arrival

QUIET = 3.0
CAP = 20.0
SELECTOR = urllib.parse.quote(f"{CHURN_LABEL}=1")


def watch_arrivals(
    endpoint: Endpoint, pods: tuple[tuple[str, str], ...], end: float
) -> list[Arrival]:
    """Arrivals of churn changes at a bare watcher until quiet; ``end``: when the churn stops."""
    watcher = _Watcher(endpoint, {f"{ns}/{name}": i for i, (ns, name) in enumerate(pods)}, end)
    reader = threading.Thread(target=watcher.run, name="watch-floor", daemon=True)
    reader.start()
    _wait_until_quiet(watcher.arrivals, end)
    watcher.stop()
    reader.join(5)
    return list(watcher.arrivals)


class _Watcher:
    """Watches from a fresh list's resourceVersion; a stream the server ends is resumed from
    the last resourceVersion seen (the API server closes watchers it finds slow). Every
    stream asks the server to end it by ``end + CAP``, so none outlives its trial."""

    def __init__(self, endpoint: Endpoint, index: dict[str, int], end: float) -> None:
        self.index = index
        self._end = end
        self.arrivals: list[Arrival] = []
        self._connection = ApiConnection(endpoint, timeout=None)
        self._stopping = threading.Event()
        query = f"/api/v1/pods?labelSelector={SELECTOR}&limit=1"
        self._version = json.loads(self._connection.call("GET", query))["metadata"][
            "resourceVersion"
        ]

    def run(self) -> None:
        while not self._stopping.is_set():
            timeout = max(1, math.ceil(self._end + CAP - time.monotonic()))
            path = (
                f"/api/v1/pods?watch=1&labelSelector={SELECTOR}"
                f"&resourceVersion={self._version}&timeoutSeconds={timeout}"
            )
            # Shut down under this thread at the end, or ended by the server: http.client then
            # fails in odd ways (OSError, ValueError, AttributeError), all meaning "reopen".
            with contextlib.suppress(Exception):
                self._read(self._connection.stream(path))
            self._connection.close()
            self._stopping.wait(0.1)  # a server that refuses at once is not asked in a loop

    def stop(self) -> None:
        self._stopping.set()
        self._connection.abort()  # ends the reader's blocking read

    def _read(self, lines: Iterable[bytes]) -> None:
        for line in lines:
            arrived = time.monotonic()
            if self._stopping.is_set():
                return
            arrival, version = parse_event(line, self.index, arrived)
            if version is None:  # an ERROR event (410 Gone): nothing to resume from
                self._stopping.set()
                return
            self._version = version
            if arrival is not None:
                self.arrivals.append(arrival)


def parse_event(
    line: bytes, index: dict[str, int], arrived: float
) -> tuple[Arrival | None, str | None]:
    """(the churn Pod and seq of a MODIFIED event or None, the event's resourceVersion or
    None for an ERROR event)."""
    event = json.loads(line)
    if event.get("type") == "ERROR":
        return None, None
    meta = event["object"]["metadata"]
    version = str(meta.get("resourceVersion"))
    pod = index.get(f"{meta.get('namespace')}/{meta.get('name')}")
    seq = (meta.get("labels") or {}).get(SEQ_LABEL)
    if seq is None:  # the phase workload: the seq is in the Pod's condition
        seq = phases.seq_of(event["object"])
    if event.get("type") != "MODIFIED" or pod is None or seq is None:
        return None, version
    return (pod, int(seq), arrived), version


def _wait_until_quiet(arrivals: list[Arrival], end: float) -> None:
    while True:
        time.sleep(0.25)
        now = time.monotonic()
        last = arrivals[-1][2] if arrivals else end
        if now > end + CAP or (now > end + QUIET and now - last > QUIET):
            return
