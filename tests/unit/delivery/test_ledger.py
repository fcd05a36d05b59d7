"""The send ledger: what delivery did with each notification, per sink, as the page reads it."""

from __future__ import annotations

import dataclasses

from notifier.delivery import Delivery
from notifier.delivery.ledger import SendLedger, SendRecord
from notifier.notifications import ContextRequest, Notification
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


class _Changes:
    """An enricher that attaches a likely cause, as ``enrich: [changes]`` does."""

    def prefetch(self, request: ContextRequest) -> None:
        pass

    def enriched(self, note: Notification) -> Notification:
        changes = {"likely_cause": f"rollout of {note.ordering_key}", "lines": []}
        return dataclasses.replace(note, facts={**note.facts, "context": {"changes": changes}})


def test_the_likely_cause_it_was_sent_with_is_kept_beside_its_state(
    server: WebhookServer, stoppers: list[Delivery]
) -> None:
    name = unique("cause")
    delivery = Delivery([webhook_target(server.url, name)], outbox=None)
    delivery.enrich_with(_Changes())
    started(stoppers, delivery)
    asked = ContextRequest(("changes",), "Pod", "default", "web-1", uid="u1", resource_version="7")
    note = dataclasses.replace(notification(name), context=asked)
    plain = notification(name, key="Pod/default/web-2")
    delivery.submit(note)
    delivery.submit(plain)
    eventually(lambda: _state(delivery.ledger, note.id, name) == "delivered")
    eventually(lambda: _state(delivery.ledger, plain.id, name) == "delivered")
    assert _record(delivery.ledger, note.id, name).cause == f"rollout of {note.ordering_key}"
    assert _record(delivery.ledger, plain.id, name).cause == ""


def _record(ledger: SendLedger, note_id: str, sink: str) -> SendRecord:
    record = ledger.record(note_id, sink)
    assert record is not None, f"no record of {note_id} to {sink}"
    return record


def _state(ledger: SendLedger, note_id: str, sink: str) -> str:
    record = ledger.record(note_id, sink)
    return "" if record is None else record.state
