"""After a list: memory given back once it is acted on, once per relist, never per event."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from notifier.objects import EventType, Kind, KubeObject
from notifier.origin import Origin
from notifier.source.store import Store
from notifier.workers import settling as settling_module
from notifier.workers.intake import Intake
from notifier.workers.known import Known
from notifier.workers.settling import Settings, Settling
from tests.unit.workers.test_intake import WEB, WEB_KEY, _delta, _pod, _queue

DEADLINE = 10.0
CAUGHT_UP = "what changes while the service is stopped is caught up"


@dataclass
class _Listed:
    """An informer as the settling reads it: its kind, its cache, whether it is synced."""

    kind: Kind = Kind.POD
    store: Store = field(default_factory=lambda: Store(Kind.POD))
    synced: bool = True
    stopped: bool = False
    namespaces: list[str | None] = field(default_factory=lambda: [None])


class _WatchedIntake(Intake):
    """An intake that says how often it was asked whether a list is still waiting."""

    def __init__(self) -> None:
        super().__init__(_queue(), Known())
        self.asked = threading.Condition()
        self.waiting_seen = 0  # answers "still waiting", initial list or relist

    def initial_list_waiting(self) -> bool:
        return self._seen(super().initial_list_waiting())

    def relist_waiting(self) -> bool:
        return self._seen(super().relist_waiting())

    def _seen(self, waiting: bool) -> bool:
        with self.asked:
            self.waiting_seen += waiting
            self.asked.notify_all()
        return waiting

    def wait_until_seen_waiting(self, times: int) -> None:
        with self.asked:
            assert self.asked.wait_for(lambda: self.waiting_seen >= times, DEADLINE)


class _Recorder:
    """What happened, in order: commits, and each give-back with whether a list still waited."""

    def __init__(self, intake: Intake) -> None:
        self._intake = intake
        self.events: list[str] = []
        self.changed = threading.Condition()

    def commit(self, _timeout: float) -> bool:
        self._note("commit")
        return True

    def resume_collection(self) -> None:
        self._note("GC resumed")

    def give_back(self) -> bool:
        waiting = self._intake.initial_list_waiting() or self._intake.relist_waiting()
        self._note("give back while waiting" if waiting else "give back")
        return True

    def _note(self, event: str) -> None:
        with self.changed:
            self.events.append(event)
            self.changed.notify_all()

    def wait_for(self, event: str) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: event in self.events, DEADLINE), self.events

    def wait_for_give_backs(self, count: int) -> None:
        with self.changed:
            done = lambda: self.events.count("give back") >= count  # noqa: E731
            assert self.changed.wait_for(done, DEADLINE), self.events


@contextmanager
def _running(
    quiet_seconds: float = 0.3, listed: _Listed | None = None, paused_seconds: float = DEADLINE
) -> Iterator[tuple[Settling, _WatchedIntake, _Recorder]]:
    intake = _WatchedIntake()
    recorder = _Recorder(intake)
    stop = threading.Event()
    settings = Settings(
        poll_seconds=0.01, quiet_seconds=quiet_seconds, collection_paused_seconds=paused_seconds
    )
    settling = Settling(
        intake=intake,
        known=Known(),
        commit=recorder.commit,
        stop=stop,
        settings=settings,
        give_back=recorder.give_back,
        resume_collection=recorder.resume_collection,
    )
    intake.handle([_delta(EventType.ADDED, WEB, Origin.INITIAL_LIST)])
    informers = [listed or _Listed()]
    thread = threading.Thread(target=settling.run, args=(informers,), daemon=True)
    thread.start()
    try:
        yield settling, intake, recorder
    finally:
        stop.set()
        settling.wake()
        thread.join(DEADLINE)
        assert not thread.is_alive(), "the settling did not stop"


def _act_on(intake: Intake) -> None:
    intake.finished([intake.take(WEB_KEY)])


def _relist(intake: Intake, settling: Settling, obj: KubeObject) -> None:
    intake.handle([_delta(EventType.UPDATED, obj, Origin.RELIST)])
    settling.relisted()


class _SaidTo(logging.Handler):
    """Notes the settling's log lines among the recorder's events."""

    def __init__(self, recorder: _Recorder) -> None:
        super().__init__(logging.INFO)
        self._recorder = recorder

    def emit(self, record: logging.LogRecord) -> None:
        self._recorder._note(f"said: {record.getMessage()}")


def test_the_initial_list_is_said_acted_on_once_its_writes_are_committed() -> None:
    """Tests and benches kill the service once it says so: the baseline must be saved by
    then, or its next start takes itself for a first one and tells nothing."""
    logger = logging.getLogger(settling_module.log.name)
    with _running() as (_settling, intake, recorder):
        handler = _SaidTo(recorder)
        logger.addHandler(handler)
        level = logger.level
        logger.setLevel(logging.INFO)
        try:
            _act_on(intake)
            recorder.wait_for_give_backs(1)
        finally:
            logger.removeHandler(handler)
            logger.setLevel(level)
        said = [e for e in recorder.events if e.startswith("said: initial list acted on:")]
        assert said == [f"said: initial list acted on: {CAUGHT_UP}"], recorder.events
        assert recorder.events.index("commit") < recorder.events.index(said[0])


def test_memory_is_given_back_after_the_initial_list_is_acted_on_and_committed() -> None:
    with _running() as (settling, intake, recorder):
        intake.wait_until_seen_waiting(1)  # the settling saw the listed key still waiting
        assert recorder.events == ["GC resumed"]
        _act_on(intake)
        recorder.wait_for_give_backs(1)
        assert recorder.events == ["GC resumed", "commit", "give back"]
        assert settling.given_back == 1


def test_the_gc_resumes_once_the_lists_are_cached_before_the_workers_take_them() -> None:
    with _running() as (_settling, intake, recorder):
        recorder.wait_for("GC resumed")
        assert intake.initial_list_waiting()


def test_the_gc_resumes_when_the_lists_take_longer_than_its_pause() -> None:
    never = _Listed(synced=False)
    with _running(listed=never, paused_seconds=0.05) as (_settling, _intake, recorder):
        recorder.wait_for("GC resumed")
    assert recorder.events == ["GC resumed"]


def test_each_relist_gives_back_once_after_it_is_acted_on() -> None:
    with _running() as (settling, intake, recorder):
        _act_on(intake)
        recorder.wait_for_give_backs(1)
        for version in ("101", "102"):
            seen_before = intake.waiting_seen
            _relist(intake, settling, _pod("web-1", version))
            intake.wait_until_seen_waiting(seen_before + 1)  # it waits for the workers
            _act_on(intake)
            recorder.wait_for_give_backs(settling.given_back + 1)
        assert recorder.events == ["GC resumed", *["commit", "give back"] * 3]
        assert settling.given_back == 3


def test_live_events_alone_never_give_back() -> None:
    with _running() as (settling, intake, recorder):
        _act_on(intake)
        recorder.wait_for_give_backs(1)
        for version in range(200, 300):
            intake.handle([_delta(EventType.UPDATED, _pod("web-1", str(version)))])
            _act_on(intake)
        # A relist after them: its give-back is the second, so none came from the events.
        _relist(intake, settling, _pod("web-1", "300"))
        _act_on(intake)
        recorder.wait_for_give_backs(2)
        assert settling.given_back == 2


def test_relists_close_together_share_one_give_back() -> None:
    with _running(quiet_seconds=1.0) as (settling, intake, recorder):
        _act_on(intake)
        recorder.wait_for_give_backs(1)
        for _kind in (Kind.POD, Kind.DEPLOYMENT, Kind.SERVICE):  # a 410 ends every watch
            settling.relisted()
        _relist(intake, settling, _pod("web-1", "101"))
        _act_on(intake)
        recorder.wait_for_give_backs(2)
        _relist(intake, settling, _pod("web-1", "102"))  # a later relist: a give-back of its own
        _act_on(intake)
        recorder.wait_for_give_backs(3)
        assert recorder.events == ["GC resumed", *["commit", "give back"] * 3]


def test_a_stop_while_a_relist_waits_for_the_workers_gives_nothing_back() -> None:
    with _running() as (settling, intake, recorder):
        _act_on(intake)
        recorder.wait_for_give_backs(1)
        seen_before = intake.waiting_seen
        _relist(intake, settling, _pod("web-1", "101"))
        intake.wait_until_seen_waiting(seen_before + 1)
    # Stopped (and joined) by the context while the relist was still waiting.
    assert recorder.events == ["GC resumed", "commit", "give back"]
