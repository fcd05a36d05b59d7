"""The Enricher: one fetch per object change, within its deadline, never more than it can hold."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator

import pytest

from notifier.enrichment import enricher as enricher_module
from notifier.enrichment.config import EnrichmentConfig
from notifier.enrichment.enricher import Enricher
from notifier.kinds.registry import KINDS
from notifier.notifications import Notification
from tests.unit.enrichment.fakes import EVENTS_PATH, LOG_PATH, RS_PATH, FakeApi, request
from tests.unit.sinks.factories import notification

ANSWERS = {LOG_PATH: b"panic: boom\n", EVENTS_PATH: b'{"items": []}', RS_PATH: b"{}"}


@pytest.fixture
def release() -> Iterator[threading.Event]:
    gate = threading.Event()
    yield gate
    gate.set()  # no fetch thread outlives its test


def _enricher(api: FakeApi, **settings: object) -> Enricher:
    return Enricher(api, EnrichmentConfig.model_validate(settings), kinds=KINDS)  # type: ignore[arg-type]


def _asking(note: Notification) -> Notification:
    return dataclasses.replace(note, context=request())


def test_the_sinks_of_one_change_share_one_fetch_and_get_it_in_their_message() -> None:
    api = FakeApi(ANSWERS)
    enricher = _enricher(api)
    first, second = _asking(notification("hook")), _asking(notification("slack"))
    enricher.prefetch(first.context)  # type: ignore[arg-type]
    sent = [enricher.enriched(first), enricher.enriched(second)]
    enricher.stop()
    assert api.paths() == [LOG_PATH, EVENTS_PATH, RS_PATH]
    for note in sent:
        assert note.context is None  # attached: nothing left to fetch on a retry
        assert note.facts["context"]["logs"][0]["lines"] == ["panic: boom"]
        assert note.facts["context"]["owners"] == ["ReplicaSet/web-7d9f"]


def test_past_its_deadline_the_message_goes_without_context_and_says_so(
    release: threading.Event,
) -> None:
    def hang() -> bytes:
        release.wait(10)
        return b""

    enricher = _enricher(FakeApi({LOG_PATH: hang}), timeout_seconds=0.2)
    began = time.monotonic()
    context = enricher.context_for(request())
    waited = time.monotonic() - began
    enricher.stop()
    assert context.problems == ("context not fetched within 0.2 s",)
    assert waited < 2.0  # the deadline and a short grace, not the hung request


def test_a_flood_beyond_what_is_tracked_goes_out_without_context(
    release: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(enricher_module, "_MAX_TRACKED", 2)

    def hang() -> bytes:
        release.wait(10)
        return b""

    enricher = _enricher(FakeApi({LOG_PATH: hang}), timeout_seconds=5)
    for n in range(2):
        enricher.prefetch(request(resource_version=str(n)))
    context = enricher.context_for(request(resource_version="99"))
    enricher.stop()
    assert context.problems == ("context skipped: too many notifications waiting for it",)


def test_a_bug_in_fetching_costs_the_context_not_the_message() -> None:
    enricher = _enricher(FakeApi({LOG_PATH: RuntimeError("bug")}))
    note = enricher.enriched(_asking(notification()))
    enricher.stop()
    assert note.facts["context"]["problems"] == [
        "context could not be fetched (see the service's log)"
    ]


def test_new_settings_apply_to_fetches_started_after_them() -> None:
    api = FakeApi(ANSWERS)
    enricher = _enricher(api, log_lines=5)
    enricher.context_for(request(resource_version="1"))
    enricher.configure(EnrichmentConfig(log_lines=2), kinds=KINDS)
    enricher.context_for(request(resource_version="2"))
    enricher.stop()
    tails = [query["tailLines"] for path, query, _ in api.asked if path == LOG_PATH]
    assert tails == ["5", "2"]


def test_a_notification_without_a_request_is_sent_as_it_is() -> None:
    enricher = _enricher(FakeApi({}))
    plain = notification()
    assert enricher.enriched(plain) is plain
    enricher.stop()
    assert "context" not in plain.facts


def test_facts_get_the_context_too_and_alertmanager_shows_the_log_excerpt() -> None:
    from notifier.sinks.alertmanager.alerts import PARTS, annotations_of
    from notifier.sinks.rendering import ReceiverTemplate

    api = FakeApi(ANSWERS)
    enricher = _enricher(api)
    facts = {"summary": "web crashed", "fingerprint": "f1"}
    note = dataclasses.replace(_asking(notification("hub")), facts=facts)
    sent = enricher.enriched(note)
    enricher.stop()
    assert sent.facts["context"]["logs"][0]["lines"] == ["panic: boom"]
    template = ReceiverTemplate("hub", PARTS, {})
    assert annotations_of(sent.facts, template)["logs"] == "app:\npanic: boom"
