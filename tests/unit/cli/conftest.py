"""Running the ``kube-notifier`` command in-process: its exit code and what it printed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from notifier.cli import main


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


Cli = Callable[..., Run]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    def run(*argv: str) -> Run:
        try:
            code = main(list(argv))
        except SystemExit as exit_:  # argparse's usage errors and --help
            code = int(exit_.code or 0)
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str], Path]:
    def write_file(name: str, text: str) -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write_file
