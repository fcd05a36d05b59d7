"""What the page says of a dead letter once a replay sent it again, or failed again: the
replay runs in another process (``dead-letters replay``) on the state file the service has
open, and the running service's page reads what it did from that file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from notifier.api.page.views import Told
from notifier.cli import main
from notifier.delivery.ledger import SendLedger
from notifier.service.page import SendStates
from notifier.state import Failure, StateStore
from notifier.state.replays import RECORD_REPLAY
from tests.support.webhook_server import WebhookServer
from tests.unit.sinks.factories import notification

CONFIG = """
sinks:
  - {{name: hook, type: webhook, url: "{url}"}}
rules:
  - {{name: all, sinks: [hook]}}
"""


def _dead_lettered(store: StateStore, ledger: SendLedger) -> Told:
    note = notification("hook")
    ledger.queued(note.id, "hook")
    ledger.dead_lettered(note.id, "hook", 1, "http_400: bad request")
    seq = store.outbox.add(note)
    store.outbox.dead_letter(seq, note, Failure("http_400", "bad request", 1))
    store.flush()
    return Told("hook", note.id)


def _replay(tmp_path: Path, server: WebhookServer) -> int:
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG.format(url=server.url))
    state = str(tmp_path / "state.db")
    return main(["dead-letters", "replay", "--config", str(config), "--state", state])


def test_a_dead_letter_a_replay_sent_is_delivered_by_that_replay(
    tmp_path: Path, server: WebhookServer, store: StateStore, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = SendLedger()
    told = _dead_lettered(store, ledger)
    states = SendStates(ledger, store.replays)
    assert states.state(told).state == "dead-lettered"

    assert _replay(tmp_path, server) == 0

    shown = states.state(told)
    assert (shown.state, shown.attempts) == ("delivered", 1)
    assert shown.replayed_at > 0 and shown.at == shown.replayed_at and shown.replay_error == ""
    assert shown.detail == "http_400: bad request"  # why it had been given up on


def test_a_replay_that_fails_again_leaves_it_dead_lettered_saying_so(
    tmp_path: Path, server: WebhookServer, store: StateStore, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = SendLedger()
    told = _dead_lettered(store, ledger)
    server.answer(400, times=1)

    assert _replay(tmp_path, server) == 1

    shown = SendStates(ledger, store.replays).state(told)
    assert (shown.state, shown.detail) == ("dead-lettered", "http_400: bad request")
    assert shown.replayed_at > 0 and shown.replay_error.startswith("http_400")


def test_a_replay_older_than_the_dead_letter_says_nothing_of_it(
    tmp_path: Path, store: StateStore
) -> None:
    ledger = SendLedger(clock=lambda: 2e9)  # dead-lettered after the replay recorded below
    told = _dead_lettered(store, ledger)
    with sqlite3.connect(tmp_path / "state.db") as conn:
        conn.execute(RECORD_REPLAY, (told.notification_id, "hook", 1, "", 1e9))
    assert SendStates(ledger, store.replays).state(told).state == "dead-lettered"
