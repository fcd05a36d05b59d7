"""Dead letters sent again: each once through its sink, built from the config as the service
builds it, oldest first, under its original idempotency key.

A letter that is sent is removed from the state file; one that fails stays,
and says why. Either way the state file records what the send did
(``state/replays.py``), so the running service's page says "delivered by a
replay" or "failed again", whichever process replayed it. Retries are not
done here: after a retryable failure (the receiver still down, a 429) the
rest of that sink's letters are left for a later replay. Sends to one
pacing group keep its ``min_interval_seconds``.
``kube-notifier dead-letters replay`` (``cli/dead_letters.py``) and the
page's replay button (``service/page.py``) both go through ``Replay``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

import msgspec

from notifier.config.model import Config
from notifier.delivery.failures import in_words
from notifier.notifications import Notification, decoded
from notifier.sinks.base import SendError, Sink
from notifier.sinks.building import build_sink
from notifier.sinks.thread_roots import MemoryThreads
from notifier.state.dead_letters import DeadLetter, DeadLetterFile


def replay_letters(
    config: Config, path: Path, out: TextIO, *, sink: str | None, limit: int
) -> tuple[int, int]:
    """``dead-letters replay`` from inside the service (the page): (sent, left).

    Raises ``DeadLetterFileError`` or ``SinkBuildError``; says what it did on ``out``.
    """
    store = DeadLetterFile(path)
    try:
        replay = Replay(config, store, out, dry_run=False)
        replay.send_all(store.select(sink=sink, limit=limit))
        replay.summary()
        return replay.sent, replay.left
    finally:
        store.close()


class Replay:
    """Sends letters one by one (``send_all``), counting what was ``sent`` and ``left``;
    ``dry_run`` only says what it would send."""

    def __init__(self, config: Config, store: DeadLetterFile, out: TextIO, *, dry_run: bool):
        self._configs = {sink.name: sink for sink in config.sinks}
        self._store = store
        self._out = out
        self._dry_run = dry_run
        self._sinks: dict[str, Sink] = {}
        self._given_up: dict[str, str] = {}  # sink -> why the rest of its letters wait
        self._last_send: dict[str, float] = {}  # pacing group -> monotonic time
        self.sent = self.left = 0

    def send_all(self, letters: Iterable[DeadLetter]) -> None:
        try:
            for letter in letters:
                self._send(letter)
        finally:
            for sink in self._sinks.values():
                sink.close()

    def summary(self) -> int:
        verb = "would send" if self._dry_run else "sent"
        print(f"{verb} {self.sent}, left {self.left}", file=self._out)
        return 1 if self.left else 0

    def _send(self, letter: DeadLetter) -> None:
        why = self._cannot_send(letter)
        note = None if why else _decoded(letter)
        if note is None:
            self._keep(letter, why or "its stored notification cannot be decoded")
            return
        if self._dry_run:
            self.sent += 1
            print(
                f"#{letter.id} would send to {letter.sink}: {note.facts.get('summary', '')!s:.80}",
                file=self._out,
            )
            return
        self._wait_for_turn(letter.sink)
        failure = self._failure_of(letter, note)
        if failure:
            self._store.failed_again(letter, failure)
            self._keep(letter, failure)
            return
        self._store.resent(letter)
        self.sent += 1
        print(f"#{letter.id} sent to {letter.sink}", file=self._out)

    def _failure_of(self, letter: DeadLetter, note: Notification) -> str:
        """Send it; why it failed ("" once sent)."""
        try:
            self._sink(letter.sink).send(note)
        except SendError as err:
            if err.retryable:
                self._given_up[letter.sink] = f"{letter.sink} answered {err.reason} to #{letter.id}"
            return in_words(err.reason, str(err))
        except Exception as err:  # a bug in the sink: say so, keep the letter, go on
            return f"the sink failed unexpectedly: {type(err).__name__}: {err}"
        return ""

    def _cannot_send(self, letter: DeadLetter) -> str:
        config = self._configs.get(letter.sink)
        if config is None:
            return f"no sink {letter.sink!r} in the config"
        if not config.enabled:
            return f"sink {letter.sink!r} is disabled in the config"
        return self._given_up.get(letter.sink, "")

    def _keep(self, letter: DeadLetter, why: str) -> None:
        self.left += 1
        print(f"#{letter.id} kept: {why}", file=self._out)

    def _sink(self, name: str) -> Sink:
        if name not in self._sinks:
            self._sinks[name] = build_sink(self._configs[name], threads=MemoryThreads())
        return self._sinks[name]

    def _wait_for_turn(self, name: str) -> None:
        config = self._configs[name]
        group, interval = config.pacing_group, config.delivery.min_interval_seconds
        wait = self._last_send.get(group, -interval) + interval - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self._last_send[group] = time.monotonic()


def _decoded(letter: DeadLetter) -> Notification | None:
    try:
        return decoded(letter.body)
    except msgspec.DecodeError:
        return None
