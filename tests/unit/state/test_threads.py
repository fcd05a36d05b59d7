from __future__ import annotations

from pathlib import Path

from tests.unit.state.helpers import open_store


def test_thread_roots_are_read_at_once_and_survive_a_restart(tmp_path: Path) -> None:
    first = open_store(tmp_path / "s.db")
    first.threads.remember_thread("slack@#ops", "Pod/default/web-1", "1700000000.000001")
    seen_at_once = first.threads.thread_ts("slack@#ops", "Pod/default/web-1")
    first.close()

    second = open_store(tmp_path / "s.db")
    after_restart = second.threads.thread_ts("slack@#ops", "Pod/default/web-1")
    other_scope = second.threads.thread_ts("slack@#dev", "Pod/default/web-1")
    second.close()

    assert seen_at_once == after_restart == "1700000000.000001"
    assert other_scope is None


def test_a_newer_root_for_the_same_key_replaces_the_old(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.db")
    store.threads.remember_thread("s", "k", "1.0")
    store.threads.remember_thread("s", "k", "2.0")
    store.flush()

    assert store.threads.thread_ts("s", "k") == "2.0"
    store.close()
