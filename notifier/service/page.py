"""The page's views, wired from the running parts (``notifier/api/page``).

Reads come from memory the service keeps anyway (the firing board, what
the rules engine holds back, the decision ring, the silences in force, the
sinks' queues, their last failed attempts and where each recent
notification is with its sink, the readiness verdict /readyz gives) or one
bounded query (dead letters; what the last replay of a dead-lettered
notification did, which the replay wrote to the state file). Writes exist
only with ``--page-writes``: a silence goes through ``silences/writing.py``
to the ConfigMap the CLI writes, the same way, and a replay through
``delivery/replay.py``, as ``dead-letters replay`` does.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from notifier.api.board import FiringBoard
from notifier.api.decision_log import DecisionLog
from notifier.api.page.views import (
    DeadLetterItem,
    FiringItem,
    HealthView,
    PageParts,
    Replay,
    ReplayOutcome,
    SendFailure,
    SendState,
    SinkQueue,
    Told,
    Writes,
)
from notifier.api.paged import Paged
from notifier.api.waiting import WaitingList
from notifier.delivery.delivery import Delivery
from notifier.delivery.ledger import DEAD_LETTERED, SendLedger, after_replay
from notifier.delivery.replay import replay_letters
from notifier.reload.holder import RulesHolder
from notifier.rules.engine import RulesEngine
from notifier.silences.book import Silence, SilenceBook
from notifier.silences.writing import silence_writes
from notifier.sinks.secrets import SinkBuildError
from notifier.source.client import RawClient
from notifier.state import StateStore
from notifier.state.dead_letters import DeadLetter, DeadLetterFileError
from notifier.state.firing import DurableFirings
from notifier.state.replays import Replays

REPLAYED_AT_ONCE = 100


@dataclass(frozen=True, slots=True)
class PageSources:
    board: FiringBoard
    engine: RulesEngine  # what it holds back: pending ``for:`` timers, open groups
    decisions: DecisionLog
    book: SilenceBook
    delivery: Delivery
    state: StateStore | None
    holder: RulesHolder
    client: RawClient
    silences_map: tuple[str, str] | None
    health: HealthView  # the readiness verdict /readyz answers with


def page_parts(sources: PageSources, *, writes: bool) -> PageParts:
    where = "/".join(sources.silences_map) if sources.silences_map else ""
    replays = sources.state.replays if sources.state else None
    return PageParts(
        now=sources.board,
        waiting=WaitingList(sources.engine.pending, sources.engine.open_groups),
        decisions=sources.decisions,
        silences=_Silences(sources.book, sources.board),
        delivery=_Delivery(sources.delivery, sources.state),
        health=sources.health,
        sent=SendStates(sources.delivery.ledger, replays),
        writes=_writes(sources) if writes else None,
        silences_map=where,
    )


def rule_targets(holder: RulesHolder) -> Callable[[str], frozenset[str]]:
    """A rule's ``to:`` states in the ruleset in use (for the firing board)."""

    def targets(rule: str) -> frozenset[str]:
        for compiled in holder.ruleset().rules:
            if compiled.name == rule:
                return compiled.to
        return frozenset()

    return targets


def told_before(firings: DurableFirings) -> list[FiringItem]:
    """What ``send_resolved`` rules told before this process started, for the firing board."""
    items = []
    for firing in firings.all_firing():
        namespace, _, name = str(firing.key).rpartition("/")
        items.append(FiringItem(firing.rule, firing.kind.value, namespace, name,
                                tuple(sorted(firing.states)), firing.fired_at, ()))  # fmt: skip
    return items


class _Silences:
    def __init__(self, book: SilenceBook, board: FiringBoard) -> None:
        self._book, self._board = book, board

    def silences(self) -> list[Silence]:
        now = time.time()
        return sorted(
            self._book.all(), key=lambda s: (s.ends_at <= now, not s.active(now), s.ends_at)
        )

    def preview(self, matchers: dict[str, str], limit: int) -> Paged[FiringItem]:
        return self._board.preview(matchers, limit)


class _Delivery:
    def __init__(self, delivery: Delivery, state: StateStore | None) -> None:
        self._delivery, self._state = delivery, state

    def queues(self) -> list[SinkQueue]:
        return [SinkQueue(r.sink_name, r.integration, r.depth(), r.oldest_age())
                for r in self._delivery.queues()]  # fmt: skip

    def failures(self, limit: int) -> list[SendFailure]:
        return [SendFailure(f.at, f.sink, f.reason, f.detail, f.ordering_key, f.attempt)
                for f in self._delivery.failures.recent(limit)]  # fmt: skip

    def dead_letters(self, limit: int) -> Paged[DeadLetterItem]:
        if self._state is None:
            return Paged([], 0, 0, limit)
        letters = self._state.dead_letters
        items = [self._item(letter) for letter in letters.recent(limit)]
        return Paged(items, letters.count(), 0, limit)

    def _item(self, letter: DeadLetter) -> DeadLetterItem:
        """The letter, and what its last replay said when one failed to send it since."""
        assert self._state is not None
        item = DeadLetterItem(letter.id, letter.dead_at, letter.sink, letter.reason,
                              letter.attempts, letter.ordering_key, letter.detail)  # fmt: skip
        replayed = self._state.replays.latest(letter.notification_id, letter.sink)
        if replayed is None or replayed.delivered or replayed.at < letter.dead_at:
            return item
        return replace(item, replayed_at=replayed.at, replay_error=replayed.detail)


class SendStates:
    """What each sink made of a notification: delivery's ledger, and for a dead letter what
    its last replay did, from the state file (any process may have replayed it)."""

    def __init__(self, ledger: SendLedger, replays: Replays | None) -> None:
        self._ledger, self._replays = ledger, replays

    def state(self, told: Told) -> SendState:
        record = self._ledger.record(told.notification_id, told.sink)
        if record is None:
            return SendState(told.sink, "unknown")
        if record.state == DEAD_LETTERED and self._replays is not None:
            record = after_replay(record, self._replays.latest(told.notification_id, told.sink))
        return SendState(told.sink, record.state, record.detail, record.attempts, record.at,
                         record.cause, record.replayed_at, record.replay_error)  # fmt: skip


def _writes(sources: PageSources) -> Writes:
    silences = None
    if sources.silences_map is not None:
        namespace, name = sources.silences_map
        silences = silence_writes(sources.client, namespace, name)
    return Writes(silences=silences, replay=_replayer(sources) if sources.state else None)


def _replayer(sources: PageSources) -> Replay:
    assert sources.state is not None
    path = sources.state.path

    def replay(sink: str | None) -> ReplayOutcome:
        said = io.StringIO()
        try:
            sent, left = replay_letters(sources.holder.current.config, path, said, sink=sink,
                                        limit=REPLAYED_AT_ONCE)  # fmt: skip
        except (DeadLetterFileError, SinkBuildError) as err:
            return ReplayOutcome(0, 0, [str(err)])
        return ReplayOutcome(sent, left, said.getvalue().splitlines())

    return replay
