"""Delivery asks for context when a notification is submitted and attaches it once, before
the first attempt; a retry sends the same message."""

from __future__ import annotations

import dataclasses

from notifier.delivery import Delivery
from notifier.notifications import ContextRequest, Notification
from tests.support.webhook_server import WebhookServer
from tests.unit.delivery.harness import eventually, started, unique, webhook_target
from tests.unit.sinks.factories import notification

REQUEST = ContextRequest(("events",), "Pod", "shop", "web-1", "uid-1", "7")


class CountingEnricher:
    def __init__(self) -> None:
        self.prefetched: list[ContextRequest] = []
        self.attached = 0

    def prefetch(self, request: ContextRequest) -> None:
        self.prefetched.append(request)

    def enriched(self, note: Notification) -> Notification:
        self.attached += 1
        facts = {**note.facts, "context": {"owners": ["Deployment/ctx"]}}
        return dataclasses.replace(note, facts=facts, context=None)


def test_context_is_fetched_from_submission_and_attached_once_across_retries(
    server: WebhookServer, stoppers: list[Delivery]
) -> None:
    name = unique("hook")
    delivery = Delivery([webhook_target(server.url, name)], outbox=None)
    enricher = CountingEnricher()
    delivery.enrich_with(enricher)
    started(stoppers, delivery)
    server.answer(503, times=2)
    delivery.submit(dataclasses.replace(notification(name), context=REQUEST))
    eventually(lambda: len(server.received()) == 3)
    delivery.submit(notification(name, key="Pod/default/other"))  # asks for nothing
    eventually(lambda: len(server.received()) == 4)
    assert enricher.prefetched == [REQUEST] and enricher.attached == 1
    bodies = [r.json().get("context") for r in server.received()]
    assert bodies[:3] == [{"owners": ["Deployment/ctx"]}] * 3  # two refusals and the success
    assert bodies[3] is None
