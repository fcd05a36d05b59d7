"""The mounted-file reloader keeps watching whatever one reload does."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from notifier.config.loading import LoadedConfig
from notifier.reload.holder import RulesHolder, Staged
from notifier.reload.polling import FileReloader
from tests.unit.config.test_reloading import GOOD


def eventually(check: Callable[[], bool], seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.02)


def test_an_unexpected_error_is_logged_and_the_file_is_still_watched(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(GOOD)
    holder = RulesHolder.from_file(path)
    prepared: list[str] = []

    def stager(previous: LoadedConfig, candidate: LoadedConfig) -> Staged:
        prepared.append(candidate.digest)
        if len(prepared) == 1:
            raise RuntimeError("a bug in a stager")
        return Staged(apply=lambda: None)

    holder.stage_with(stager)
    reloader = FileReloader(holder, path, interval=0.05)
    with caplog.at_level(logging.ERROR, logger="notifier.config"):
        reloader.start()
        try:
            path.write_text(GOOD.replace("first", "second"))
            eventually(lambda: len(prepared) == 1)
            path.write_text(GOOD.replace("first", "third"))
            eventually(lambda: [rule.name for rule in holder.ruleset().rules] == ["third"])
        finally:
            reloader.stop()
    assert "reload failed unexpectedly" in caplog.text
    assert "a bug in a stager" in caplog.text


def test_the_log_says_loaded_first_and_valid_again_after_a_rejected_edit_is_reverted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from notifier.reload.polling import report

    path = tmp_path / "config.yaml"
    path.write_text(GOOD)
    holder = RulesHolder.from_file(path)
    reloader = FileReloader(holder, path, interval=3600)
    with caplog.at_level(logging.INFO, logger="notifier.config"):
        report(holder.last_result, str(path))
        path.write_text(GOOD + "\nnot: [valid\n")
        reloader.check()
        path.write_text(GOOD)
        reloader.check()
    said = [record.getMessage().split(":")[0] for record in caplog.records]
    assert said[0] == f"config {path} loaded (sha256 {holder.last_result.digest[:12]})"
    assert said[1].startswith(f"config {path} rejected")
    assert said[2] == f"config {path} is valid again; the rules in use did not change"
