"""The light watch loop (rules ConfigMap, namespace labels) paces itself like the informers."""

from __future__ import annotations

import logging
import threading
import time

import pytest
import urllib3

from notifier.source.watching import WatchLoop


class ScriptedLoop(WatchLoop):
    """Each ``follow`` does the next step of the script; the loop stops when it runs out."""

    def __init__(self, steps: list[str]) -> None:
        super().__init__(client=None, name="scripted")  # type: ignore[arg-type]
        self.steps = steps
        self.opened: list[float] = []
        self.done = threading.Event()

    def read(self) -> str:
        return "1"

    def follow(self, version: str) -> None:
        self.opened.append(time.monotonic())
        if not self.steps:
            self._stop.set()
            self.done.set()
            return
        step = self.steps.pop(0)
        if step == "idle":
            raise urllib3.exceptions.ReadTimeoutError(None, "/", "read timed out")  # type: ignore[arg-type]
        if step == "fail":
            raise RuntimeError("refused")


def _run(steps: list[str]) -> ScriptedLoop:
    loop = ScriptedLoop(steps)
    loop._loop()  # on this thread: the script ends it
    return loop


def test_a_quiet_watch_reopens_without_a_warning_or_backoff(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="notifier.source"):
        loop = _run(["idle", "idle", "idle"])
    assert caplog.records == []
    assert loop.opened[-1] - loop.opened[0] < 0.5


def test_a_watch_that_closes_at_once_backs_off_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="notifier.source"):
        loop = _run(["closes", "closes"])
    assert [r.getMessage().split(";")[0] for r in caplog.records] == [
        "scripted: the watch closed at once"
    ] * 2
    gaps = [b - a for a, b in zip(loop.opened, loop.opened[1:], strict=False)]
    assert min(gaps) >= 0.4  # 0.8 s less jitter, not a spin
