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
    code: int = args.handler(args)
    return code


def entry() -> NoReturn:
    """``kube-notifier`` and ``python -m notifier``: ``main``, then the exit.

    A command that leaves nothing to finish (``quick_exit``: the ``rules`` commands) ends
    the process once its output is flushed, without the interpreter's teardown: freeing
    the modules it imported and what it built took 0.1-0.15 s of CPU, a tenth of checking
    a 20,000-rule file (docs/benchmarks.md)."""
    args = build_parser().parse_args()
    code: int = args.handler(args)
    if getattr(args, "quick_exit", False):
        _exit_now(code)
    sys.exit(code)


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
