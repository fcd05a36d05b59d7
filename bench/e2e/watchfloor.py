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
starts (before the churn's first patch) and stops once the churn has ended
and no churn event came for ``QUIET`` seconds, or ``CAP`` seconds after
the end.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import urllib.parse
from collections.abc import Iterable

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
    index = {f"{ns}/{name}": i for i, (ns, name) in enumerate(pods)}
    connection = ApiConnection(endpoint, timeout=None)
    listed = json.loads(connection.call("GET", f"/api/v1/pods?labelSelector={SELECTOR}&limit=1"))
    version = listed["metadata"]["resourceVersion"]
    path = f"/api/v1/pods?watch=1&labelSelector={SELECTOR}&resourceVersion={version}"
    response = connection.stream(path)
    arrivals: list[Arrival] = []
    reader = threading.Thread(
        target=_read, args=(response, index, arrivals), name="watch-floor", daemon=True
    )
    reader.start()
    _wait_until_quiet(arrivals, end)
    connection.abort()  # ends the reader's blocking read
    reader.join(5)
    return list(arrivals)


def _read(lines: Iterable[bytes], index: dict[str, int], arrivals: list[Arrival]) -> None:
    with contextlib.suppress(OSError, ValueError):  # the stream is closed under it at the end
        for line in lines:
            arrived = time.monotonic()
            arrival = parse_event(line, index, arrived)
            if arrival is not None:
                arrivals.append(arrival)


def parse_event(line: bytes, index: dict[str, int], arrived: float) -> Arrival | None:
    """The churn Pod and seq of a MODIFIED watch event, or None."""
    event = json.loads(line)
    if event.get("type") != "MODIFIED":
        return None
    meta = event["object"]["metadata"]
    pod = index.get(f"{meta.get('namespace')}/{meta.get('name')}")
    seq = (meta.get("labels") or {}).get(SEQ_LABEL)
    if pod is None or seq is None:
        return None
    return pod, int(seq), arrived


def _wait_until_quiet(arrivals: list[Arrival], end: float) -> None:
    while True:
        time.sleep(0.25)
        now = time.monotonic()
        last = arrivals[-1][2] if arrivals else end
        if now > end + CAP or (now > end + QUIET and now - last > QUIET):
            return
