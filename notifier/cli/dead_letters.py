"""``kube-notifier dead-letters list|replay``: see what was given up on, and send it again.

Both read the state file the service uses, and may run beside it (for
example ``kubectl exec deploy/kube-notifier -- kube-notifier dead-letters
list``): the file is opened without migrating or moving it.

``replay`` sends each chosen dead letter once through its sink
(``delivery/replay.py``, which the page uses too): oldest first, under its
original idempotency key; a letter that is sent is removed, one that fails
stays, and after a retryable failure the rest of that sink's letters are
left for a later run. What each send did is written into the state file, so
the running service's page says "delivered by a replay" or "failed again".
The exit code says something was left (1).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from notifier.config import ConfigError, read_config
from notifier.config.model import Config
from notifier.delivery.replay import Replay
from notifier.exits import Exit
from notifier.sinks.secrets import SinkBuildError
from notifier.state.dead_letters import DeadLetter, DeadLetterFile, DeadLetterFileError


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
        replay = Replay(config, store, out or sys.stdout, dry_run=args.dry_run)
        try:
            replay.send_all(letters)
        except SinkBuildError as err:
            print(f"kube-notifier: {err}", file=sys.stderr)
            return Exit.CONFIG
        return replay.summary()

    return _with_chosen(args, resend, need_config=True)


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
