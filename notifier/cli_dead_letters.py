"""``kube-notifier dead-letters list|replay``: see what was given up on, and send it again.

Both read the state file the service uses, and may run beside it (for
example ``kubectl exec deploy/kube-notifier -- kube-notifier dead-letters
list``): the file is opened without migrating or moving it.

``replay`` sends each chosen dead letter once through its sink, built from
the config as the service builds it, oldest first, under its original
idempotency key. A letter that is sent is removed; one that fails stays.
Retries are not ours to do here: after a retryable failure (the receiver
still down, a 429) the rest of that sink's letters are left for a later
run, and the exit code says something was left (1).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

import msgspec

from notifier.config import ConfigError, read_config
from notifier.config.model import Config
from notifier.exits import Exit
from notifier.notifications import Notification
from notifier.sinks.base import SendError, Sink
from notifier.sinks.building import build_sink
from notifier.sinks.secrets import SinkBuildError
from notifier.sinks.thread_roots import MemoryThreads
from notifier.state.dead_letters import DeadLetter, DeadLetterFile, DeadLetterFileError

_decoder = msgspec.json.Decoder(Notification)


def run_list(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout

    def show(_: Config | None, __: DeadLetterFile, letters: list[DeadLetter]) -> int:
        for letter in letters:
            print(json.dumps(_as_dict(letter)) if args.json else _line(letter), file=out)
        if not args.json:
            print(f"{len(letters)} dead letter{'s' if len(letters) != 1 else ''}", file=out)
        return 0

    return _with_chosen(args, show, need_config=False)


def run_replay(args: argparse.Namespace, out: TextIO | None = None) -> int:
    def resend(config: Config | None, store: DeadLetterFile, letters: list[DeadLetter]) -> int:
        assert config is not None  # replay builds the sinks from it
        replay = _Replay(config, store, out or sys.stdout, dry_run=args.dry_run)
        try:
            replay.send_all(letters)
        except SinkBuildError as err:
            print(f"kube-notifier: {err}", file=sys.stderr)
            return Exit.CONFIG
        return replay.summary()

    return _with_chosen(args, resend, need_config=True)


def replay_letters(
    config: Config, path: Path, out: TextIO, *, sink: str | None, limit: int
) -> tuple[int, int]:
    """``dead-letters replay`` from inside the service (the page): (sent, left).

    Raises ``DeadLetterFileError`` or ``SinkBuildError``; says what it did on ``out``.
    """
    store = DeadLetterFile(path)
    try:
        replay = _Replay(config, store, out, dry_run=False)
        replay.send_all(store.select(sink=sink, limit=limit))
        replay.summary()
        return replay.sent, replay.left
    finally:
        store.close()


def _with_chosen(
    args: argparse.Namespace,
    work: Callable[[Config | None, DeadLetterFile, list[DeadLetter]], int],
    *,
    need_config: bool,
) -> int:
    """Open the config and state file, choose the letters by the flags, run ``work``, close.

    ``list`` with ``--state`` needs no config: the config only says where the file is.
    """
    opened = _open(args, need_config=need_config or not args.state)
    if isinstance(opened, Exit):
        return opened
    config, store = opened
    try:
        letters = store.select(sink=args.sink, reason=args.reason, limit=args.limit)
        return work(config, store, letters)
    finally:
        store.close()


class _Replay:
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
                f"#{letter.id} would send to {letter.sink}: {note.message.text[:80]}",
                file=self._out,
            )
            return
        self._wait_for_turn(letter.sink)
        try:
            self._sink(letter.sink).send(note)
        except SendError as err:
            if err.retryable:
                self._given_up[letter.sink] = f"{letter.sink} answered {err.reason} to #{letter.id}"
            self._keep(letter, f"{err.reason}: {err}")
            return
        except Exception as err:  # a bug in the sink: say so, keep the letter, go on
            self._keep(letter, f"the sink failed unexpectedly: {type(err).__name__}: {err}")
            return
        self._store.remove(letter)
        self.sent += 1
        print(f"#{letter.id} sent to {letter.sink}", file=self._out)

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


def _open(
    args: argparse.Namespace, *, need_config: bool
) -> tuple[Config | None, DeadLetterFile] | Exit:
    config = None
    if need_config:
        try:
            config = read_config(args.config).config
        except (ConfigError, OSError) as err:
            print(f"kube-notifier: cannot use config {args.config}:\n{err}", file=sys.stderr)
            return Exit.CONFIG
    path = Path(args.state or (config.state.path if config else ""))
    try:
        return config, DeadLetterFile(path)
    except DeadLetterFileError as err:
        print(f"kube-notifier: {err}", file=sys.stderr)
        return Exit.STATE


def _decoded(letter: DeadLetter) -> Notification | None:
    try:
        return _decoder.decode(letter.body)
    except msgspec.DecodeError:
        return None


def _as_dict(letter: DeadLetter) -> dict[str, object]:
    return {
        "id": letter.id,
        "dead_at": _when(letter.dead_at),
        "sink": letter.sink,
        "reason": letter.reason,
        "attempts": letter.attempts,
        "ordering_key": letter.ordering_key,
        "notification_id": letter.notification_id,
        "detail": letter.detail,
    }


def _line(letter: DeadLetter) -> str:
    return (
        f"#{letter.id} {_when(letter.dead_at)} {letter.sink} {letter.reason} "
        f"after {letter.attempts} attempt{'s' if letter.attempts != 1 else ''}: "
        f"{letter.ordering_key}: {letter.detail[:120]}"
    )


def _when(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
