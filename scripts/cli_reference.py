"""Write every command and flag of ``kube-notifier`` into docs/cli.md, so the two cannot drift.

``python -m scripts.cli_reference`` rewrites docs/cli.md between
``<!-- cli:begin -->`` and ``<!-- cli:end -->``; a test checks the file is current.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

from notifier.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "cli.md"
MARKERS = ("<!-- cli:begin (python -m scripts.cli_reference) -->", "<!-- cli:end -->")


def commands(
    parser: argparse.ArgumentParser, name: str = "kube-notifier"
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Each command that runs something (the leaves), with its full name."""
    subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subparsers:
        yield name, parser
        return
    for child_name, child in subparsers[0].choices.items():
        yield from commands(child, f"{name} {child_name}")


def flags(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str]]:
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            continue
        if action.option_strings:
            metavar = "" if action.nargs == 0 else f" {action.metavar or action.dest.upper()}"
            names = ", ".join(f"`{option}{metavar}`" for option in action.option_strings)
        else:
            names = f"`{action.metavar or action.dest.upper()}`"
        yield names, _help(action)


def _help(action: argparse.Action) -> str:
    text = " ".join((action.help or "").split()).replace("|", "\\|")
    if action.choices is not None and action.option_strings:
        text += f" (one of: {', '.join(map(str, action.choices))})"
    return text


def section() -> str:
    parts = []
    for name, parser in commands(build_parser()):
        if name == "kube-notifier":
            continue
        parts.append(f"### `{name}`\n\n{parser.description or _summary(name)}\n")
        parts.append("| argument | meaning |\n| --- | --- |")
        parts.extend(f"| {names} | {meaning} |" for names, meaning in flags(parser))
        parts.append("")
    return "\n".join(parts)


def _summary(name: str) -> str:
    summaries = {n: p for n, p in _helps(build_parser())}
    return summaries.get(name, "")


def _helps(
    parser: argparse.ArgumentParser, name: str = "kube-notifier"
) -> Iterator[tuple[str, str]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for child_name, child in action.choices.items():
                yield f"{name} {child_name}", _sentence(helps.get(child_name, ""))
                yield from _helps(child, f"{name} {child_name}")


def _sentence(text: str) -> str:
    return f"{text[:1].upper()}{text[1:]}." if text else ""


def rendered(current: str) -> str:
    begin, end = MARKERS
    head, rest = current.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{section()}{end}{tail}"


if __name__ == "__main__":
    DOC.write_text(rendered(DOC.read_text()))
    sys.stdout.write(f"wrote {DOC.relative_to(ROOT)}\n")
