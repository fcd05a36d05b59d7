"""The send ledger: what delivery did with each notification, per sink, as the page reads it."""

from __future__ import annotations

from notifier.delivery import Delivery
from notifier.delivery.ledger import SendLedger, SendRecord
from tests.support.webhook_server import WebhookServer
from tests.unit.delivery.harness import eventually, started, unique, webhook_target
from tests.unit.sinks.factories import notification


def test_a_400_is_dead_lettered_a_500_retrying_a_200_delivered(
    server: WebhookServer, stoppers: list[Delivery]
) -> None:
    server.answer(400, times=None, when=lambda r: "refused" in r.body.decode())
    server.answer(500, times=None, when=lambda r: "flaky" in r.body.decode())
    name = unique("ledger")
    target = webhook_target(server.url, name, max_attempts=100, backoff_initial_seconds=0.2)
    delivery = started(stoppers, Delivery([target], outbox=None))
    refused, flaky, taken = (notification(name, key=f"Pod/default/{word}")
                             for word in ("refused", "flaky", "taken"))  # fmt: skip
    for note in (refused, flaky, taken):
        delivery.submit(note)
    ledger = delivery.ledger
    eventually(lambda: _state(ledger, refused.id, name) == "dead-lettered")
    eventually(lambda: _state(ledger, taken.id, name) == "delivered")
    eventually(lambda: _state(ledger, flaky.id, name) == "retrying")
    assert "http_400" in _record(ledger, refused.id, name).detail
    assert "http_500" in _record(ledger, flaky.id, name).detail
    assert ledger.record(taken.id, "another-sink") is None


def test_submitted_is_queued_and_past_its_bound_the_oldest_is_forgotten() -> None:
    ledger = SendLedger(kept=2, clock=lambda: 5.0)
    for note_id in ("a", "b", "c"):
        ledger.queued(note_id, "hook")
    assert ledger.record("a", "hook") is None
    assert _state(ledger, "c", "hook") == "queued"
    ledger.delivered("a", "hook", 1)  # forgotten: stays forgotten
    assert ledger.record("a", "hook") is None
    ledger.dead_lettered("b", "hook", 2, "max_attempts: http_500" + "x" * 500)
    record = _record(ledger, "b", "hook")
    assert (record.state, record.attempts, record.at, len(record.detail)) == (
        "dead-lettered", 2, 5.0, 300)  # fmt: skip


def _record(ledger: SendLedger, note_id: str, sink: str) -> SendRecord:
    record = ledger.record(note_id, sink)
    assert record is not None, f"no record of {note_id} to {sink}"
    return record


def _state(ledger: SendLedger, note_id: str, sink: str) -> str:
    record = ledger.record(note_id, sink)
    return "" if record is None else record.state
