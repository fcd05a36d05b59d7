"""``kube-notifier dead-letters list|replay`` on a state file the service has open."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from notifier.cli import main
from notifier.exits import Exit
from notifier.notifications import Notification
from notifier.state import Failure, StateStore
from tests.support.webhook_server import WebhookServer
from tests.unit.sinks.factories import notification

CONFIG = """
sinks:
  - {{name: hook, type: webhook, url: "{url}"}}
  - {{name: other, type: webhook, url: "{url}"}}
rules:
  - {{name: all, sinks: [hook, other]}}
"""


def dead_letter(store: StateStore, note: Notification, reason: str = "http_503") -> None:
    seq = store.outbox.add(note)
    store.outbox.dead_letter(seq, note, Failure(reason, f"{reason} from the receiver", 15))
    store.flush()


def cli(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = main(list(args))
    return code, capsys.readouterr().out.splitlines()


def paths(tmp_path: Path, server: WebhookServer) -> list[str]:
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG.format(url=server.url))
    return ["--config", str(config), "--state", str(tmp_path / "state.db")]


def test_list_shows_the_dead_letters_oldest_first_and_filters(
    tmp_path: Path, server: WebhookServer, store: StateStore, capsys: pytest.CaptureFixture[str]
) -> None:
    dead_letter(store, notification("hook", key="Pod/default/a"))
    dead_letter(store, notification("other", key="Pod/default/b"), reason="http_400")
    where = paths(tmp_path, server)

    code, lines = cli("dead-letters", "list", *where, capsys=capsys)
    assert code == 0
    assert [line.split()[2:4] for line in lines[:2]] == [
        ["hook", "http_503"],
        ["other", "http_400"],
    ]
    assert "after 15 attempts: Pod/default/a: http_503 from the receiver" in lines[0]
    assert lines[-1] == "2 dead letters"

    code, lines = cli(
        "dead-letters", "list", *where, "--reason", "http_400", "--json", capsys=capsys
    )
    (only,) = [json.loads(line) for line in lines]
    assert (only["sink"], only["ordering_key"], only["attempts"]) == ("other", "Pod/default/b", 15)


def test_replay_sends_each_once_removes_what_was_sent_and_keeps_the_rest(
    tmp_path: Path, server: WebhookServer, store: StateStore, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = [notification("hook", key=f"Pod/default/p{n}") for n in range(3)]
    for note in notes:
        dead_letter(store, note)
    dead_letter(store, notification("gone"))  # a sink the config no longer has
    where = paths(tmp_path, server)

    code, lines = cli("dead-letters", "replay", *where, "--dry-run", capsys=capsys)
    assert code == 1 and lines[-1] == "would send 3, left 1"
    assert server.received() == []

    server.answer(503, times=1)  # still down at first: the rest of hook's letters wait
    code, lines = cli("dead-letters", "replay", *where, capsys=capsys)
    assert code == 1 and lines[-1] == "sent 0, left 4"
    assert len(server.received()) == 1
    assert store.dead_letters.count() == 4

    code, lines = cli("dead-letters", "replay", *where, capsys=capsys)
    assert code == 1 and lines[-1] == "sent 3, left 1"
    assert "no sink 'gone' in the config" in lines[-2]
    delivered = [r.header("Idempotency-Key") for r in server.received() if r.status == 200]
    assert delivered == [note.id for note in notes]  # oldest first, under their own keys
    assert [letter.sink for letter in store.dead_letters.recent()] == ["gone"]


def test_a_permanent_failure_keeps_that_letter_and_goes_on(
    tmp_path: Path, server: WebhookServer, store: StateStore, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = notification("hook"), notification("hook")
    dead_letter(store, first, reason="http_400")
    dead_letter(store, second, reason="http_400")
    server.answer(400, times=1)

    code, lines = cli("dead-letters", "replay", *paths(tmp_path, server), capsys=capsys)

    assert code == 1 and lines[-1] == "sent 1, left 1"
    assert [letter.notification_id for letter in store.dead_letters.recent()] == [first.id]


def test_a_file_it_cannot_use_is_a_clear_error(
    tmp_path: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str]
) -> None:
    where = paths(tmp_path, server)
    assert main(["dead-letters", "list", *where]) == Exit.STATE
    assert "no such state file" in capsys.readouterr().err
    with sqlite3.connect(tmp_path / "state.db") as conn:
        conn.execute("PRAGMA user_version = 99")
    assert main(["dead-letters", "list", *where]) == Exit.STATE
    assert "schema version 99" in capsys.readouterr().err
    assert not any(p.name.startswith("state.db.") for p in tmp_path.iterdir())  # never moved


def test_list_reads_the_state_path_from_the_config(
    tmp_path: Path, store: StateStore, capsys: pytest.CaptureFixture[str]
) -> None:
    dead_letter(store, notification("hook"))
    config = tmp_path / "config.yaml"
    config.write_text(
        CONFIG.format(url="http://127.0.0.1:9/") + f"state: {{path: {tmp_path / 'state.db'}}}\n"
    )
    code, lines = cli("dead-letters", "list", "--config", str(config), capsys=capsys)
    assert code == 0 and lines[-1] == "1 dead letter"


def test_list_with_a_state_file_needs_no_config(
    tmp_path: Path, store: StateStore, capsys: pytest.CaptureFixture[str]
) -> None:
    dead_letter(store, notification("hook", key="Pod/default/a"))
    missing = str(tmp_path / "no-such-config.yaml")
    state = str(tmp_path / "state.db")
    code, lines = cli("dead-letters", "list", "--config", missing, "--state", state, capsys=capsys)
    assert code == 0 and lines[-1] == "1 dead letter"
