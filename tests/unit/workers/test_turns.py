"""Workers' passes take turns: a second worker's batch waits for the first's to end."""

from __future__ import annotations

import threading

from notifier.objects import EventType, Kind
from notifier.origin import Origin
from notifier.queue.rate_limiting_queue import RateLimitingQueue
from notifier.source.store import Store
from notifier.transitions.model import Transition
from notifier.workers.intake import Intake
from notifier.workers.keys import WorkKey
from notifier.workers.known import Known
from notifier.workers.worker import Workers
from tests.unit.queue.fakes import unique_name
from tests.unit.workers.test_intake import _delta, _pod

# Long enough for a second worker to take its key and start its pass, were it let.
OVERLAP_WINDOW = 0.3


class Holding:
    """A sink that keeps the first pass inside until released, noting who got in."""

    def __init__(self) -> None:
        self.inside: list[str] = []
        self.changed = threading.Condition()
        self.release = threading.Event()

    def handle(self, transitions: list[Transition]) -> None:
        with self.changed:
            self.inside.append(transitions[0].obj.metadata.name)
            self.changed.notify_all()
        if len(self.inside) == 1:
            assert self.release.wait(5)

    def wait_for(self, count: int, timeout: float) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: len(self.inside) >= count, timeout)


def _list(intake: Intake, store: Store, name: str) -> None:
    store.upsert(_pod(name))
    intake.handle([_delta(EventType.ADDED, _pod(name), Origin.INITIAL_LIST)])


def test_a_second_workers_pass_waits_for_the_first_to_end() -> None:
    queue: RateLimitingQueue[WorkKey] = RateLimitingQueue(unique_name("turns"))
    store, known, sink = Store(Kind.POD), Known(), Holding()
    intake = Intake(queue, known)
    workers = Workers(
        queue=queue, intake=intake, stores={Kind.POD: store}, known=known, sink=sink, count=2
    )
    workers.start()
    try:
        _list(intake, store, "web-0")
        assert sink.wait_for(1, 5)  # one worker is inside web-0's pass
        _list(intake, store, "web-1")  # the other worker takes it...
        assert not sink.wait_for(2, OVERLAP_WINDOW)  # ...and waits for its turn
        sink.release.set()
        assert sink.wait_for(2, 5)
        assert sink.inside == ["web-0", "web-1"]
    finally:
        sink.release.set()
        assert workers.stop(2)
