"""A sink whose files cannot be used is a config error like the others: a count, then where."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from notifier.exits import Exit
from tests.unit.cli.conftest import Cli

Write = Callable[[str, str], Path]


def config(missing: Path) -> str:
    return (
        "sinks:\n"
        "  - name: s\n"
        "    type: slack\n"
        "    channel: '#x'\n"
        f"    token_file: {missing}/token\n"
        "  - name: h\n"
        "    type: webhook\n"
        "    url: https://example.com/hook\n"
        f"    ca_file: {missing}/ca.pem\n"
        "rules: [{name: r, sinks: [s, h]}]\n"
    )


def test_missing_files_are_counted_and_located(cli: Cli, write: Write, tmp_path: Path) -> None:
    missing = tmp_path / "absent"
    path = write("c.yaml", config(missing))
    run = cli("rules", "check", str(path))
    assert run.code == Exit.CONFIG
    lines = run.out.splitlines()
    assert lines[0] == "2 errors in config"
    assert lines[1] == (
        f"{path}:5:5: sinks[0].token_file: sink 's': cannot read token_file "
        f"'{missing}/token': No such file or directory"
    )
    assert lines[2].startswith(f"{path}:9:5: sinks[1].ca_file: sink 'h': cannot use its TLS files")
    assert len(lines) == 3


def test_sinks_test_locates_the_file_it_cannot_read(cli: Cli, write: Write, tmp_path: Path) -> None:
    path = write("c.yaml", config(tmp_path / "absent"))
    run = cli("sinks", "test", "s", "--config", str(path))
    assert run.code == Exit.CONFIG
    assert run.out.splitlines()[:2] == [
        "1 error in config",
        f"{path}:5:5: sinks[0].token_file: sink 's': cannot read token_file "
        f"'{tmp_path}/absent/token': No such file or directory",
    ]


def test_without_reading_files_the_same_config_checks(
    cli: Cli, write: Write, tmp_path: Path
) -> None:
    path = write("c.yaml", config(tmp_path / "absent"))
    assert cli("rules", "check", "--no-files", str(path)).code == Exit.OK
