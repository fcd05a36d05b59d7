"""A process that submits notifications through an outbox, then waits to be SIGKILLed.

Usage: python -m tests.unit.delivery.crashing_submitter DB URL SINK COUNT
Notification n has id ``<SINK>-<n>`` and ordering key ``Pod/default/web-<n % 3>``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from notifier.delivery import Delivery
from notifier.state import StateConfig, StateStore
from tests.unit.delivery.harness import webhook_target
from tests.unit.sinks.factories import notification


def crash_key(n: int) -> str:
    return f"Pod/default/web-{n % 3}"


def main() -> None:
    db, url, sink, count = sys.argv[1:]
    store = StateStore(StateConfig(path=Path(db)))
    delivery = Delivery([webhook_target(url, sink, concurrency=1)], outbox=store.outbox)
    delivery.start()
    for n in range(int(count)):
        delivery.submit(notification(sink, key=crash_key(n), id=f"{sink}-{n}"))
    store.flush()
    print("submitted", flush=True)
    time.sleep(60)


if __name__ == "__main__":
    main()
