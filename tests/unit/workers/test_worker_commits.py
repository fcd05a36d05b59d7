"""A worker commits its own writes when nothing waits behind it (BatchWriter.caller_commits)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from notifier.objects import EventType, Kind, ObjectKey
from notifier.source.store import Store
from notifier.transitions.model import Transition
from notifier.workers.intake import Intake
from notifier.workers.keys import WorkKey
from notifier.workers.known import Known
from notifier.workers.worker import Workers
from tests.unit.workers.test_intake import _delta, _pod, _queue


class Commits:
    """Records, per pass, whether the worker said it had more work when the pass ended."""

    def __init__(self) -> None:
        self.more_work: list[bool] = []
        self.passes = threading.Condition()

    @contextmanager
    def caller_commits(self, more_work: Callable[[], bool]) -> Iterator[None]:
        yield
        with self.passes:
            self.more_work.append(more_work())
            self.passes.notify_all()


class Gate:
    """A sink whose first pass waits until the test has queued more keys."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.open = threading.Event()

    def handle(self, transitions: list[Transition]) -> None:
        self.entered.set()
        assert self.open.wait(5)


def test_a_pass_says_whether_keys_wait_behind_it() -> None:
    queue, known, store, commits, sink = _queue(), Known(), Store(Kind.POD), Commits(), Gate()
    intake = Intake(queue, known)
    for name in ("a", "b"):
        known.set(WorkKey(Kind.POD, ObjectKey(f"shop/{name}")), _pod(name))
    workers = Workers(
        queue=queue, intake=intake, stores={Kind.POD: store}, known=known, sink=sink, count=1,
        commits=commits,
    )  # fmt: skip
    workers.start()
    try:
        for name in ("a", "b"):
            failed = _pod(name, "200", phase="Failed")
            store.upsert(failed)
            intake.handle([_delta(EventType.UPDATED, failed)])
            assert sink.entered.wait(5)  # "a" is being worked before "b" is queued
        sink.open.set()
        with commits.passes:
            assert commits.passes.wait_for(lambda: len(commits.more_work) == 2, 5)
        # "b" was queued while "a" was worked: the writer's thread batches; then none waits.
        assert commits.more_work == [True, False]
    finally:
        workers.stop(2)
