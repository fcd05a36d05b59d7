"""``kube-notifier``: the one command. ``run`` the service, check and test ``rules``,
list and replay ``dead-letters``.

Only the flags are imported here; a command's modules are imported once it
is chosen (``cli/commands.py``, ``cli/run.py``)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from notifier.cli.commands import (
    add_dead_letter_commands,
    add_rules_commands,
    add_silence_commands,
    add_sink_commands,
)
from notifier.cli.run import add_run_command


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kube-notifier",
        description="Turn Kubernetes object changes into notifications people can act on.",
    )
    parser.add_argument("--version", action=_Version, help="show program's version number and exit")
    commands = parser.add_subparsers(dest="command", required=True)
    add_run_command(commands)
    add_rules_commands(commands)
    add_dead_letter_commands(commands)
    add_silence_commands(commands)
    add_sink_commands(commands)
    return parser


class _Version(argparse.Action):
    """``--version``: the package's metadata read only when asked (``notifier.__version__``)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from notifier import __version__  # noqa: PLC0415

        print(f"kube-notifier {__version__}")
        parser.exit()


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.done = _returned
    code: int = args.handler(args)
    return code


def entry() -> NoReturn:
    """``kube-notifier`` and ``python -m notifier``: the command, then the process's end.

    A command with nothing left to finish (the ``rules`` commands) hands its exit code to
    ``args.done`` while what it built is still alive: here that ends the process once the
    output is flushed, without the interpreter freeing what the command built and the
    modules it imported (0.1-0.3 s of CPU for a 20,000-rule file, docs/benchmarks.md);
    under ``main`` it returns the code."""
    args = build_parser().parse_args()
    args.done = _exit_now
    sys.exit(args.handler(args))


def _returned(code: int) -> int:
    return code


def _exit_now(code: int) -> NoReturn:
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: as the interpreter's own exit says it
            code = code or 120
    os._exit(code)


if __name__ == "__main__":
    entry()
