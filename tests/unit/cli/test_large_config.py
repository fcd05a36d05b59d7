"""A config near the size cap full of mistakes is refused with the first errors and a count.

Issue #27 measured 12 s to refuse 887 KB of 20,000 rules with unknown keys; the time
is measured by hand (docs/cli.md); here the report's shape: 50 errors, then the count.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from notifier.config.documents import MAX_BYTES
from notifier.exits import Exit
from tests.unit.cli.conftest import Cli

Write = Callable[[str, str], Path]
RULES = 20_000


def many_rules() -> str:
    lines = ["sinks: [{name: o, type: console}]", "rules:"]
    lines += [f"  - {{name: rule-{i:05d}-p, unknown_key: 1}}" for i in range(RULES)]
    return "\n".join(lines) + "\n"


def test_twenty_thousand_bad_rules_print_fifty_errors_and_the_count(cli: Cli, write: Write) -> None:
    text = many_rules()
    assert 800_000 < len(text) <= MAX_BYTES
    path = write("big.yaml", text)
    run = cli("rules", "check", str(path))
    assert run.code == Exit.CONFIG
    lines = run.out.splitlines()
    assert lines[0] == "20,000 errors in config"
    assert lines[1] == (
        f"{path}:3:26: rules[0].unknown_key: unknown key 'unknown_key'; expected one of: "
        "action, continue, dedup_window, description, digest_template, enrich, escalate, "
        "flapping, fold_into, group_by, group_interval, group_wait, honor_opt_out, labels, match, "
        "mute, name, recovery_window, repeat_interval, send_resolved, sinks, template, thread_by, "
        "until"
    )
    assert lines[50].startswith(f"{path}:52:26: rules[49].unknown_key")
    assert lines[51:] == ["... and 19,950 more"]


def test_the_command_line_ends_with_everything_printed_and_the_checks_code(write: Write) -> None:
    """``python -m notifier`` ends a rules check without the interpreter's teardown
    (``notifier.cli.entry``): its output, to a pipe, must be all there first."""
    bad = write("bad.yaml", many_rules())
    good = write("good.yaml", "sinks: [{name: o, type: console}]\nrules: [{name: r, sinks: [o]}]\n")
    bad_run, good_run = (_command_line("rules", "check", "--no-files", str(p)) for p in (bad, good))
    assert bad_run.returncode == Exit.CONFIG
    assert len(bad_run.stdout.splitlines()) == 52
    assert bad_run.stdout.endswith("... and 19,950 more\n")
    assert good_run.returncode == 0
    assert good_run.stdout == f"{good}: OK: 1 rules, 1 sinks (1 enabled)\n"


def _command_line(*argv: str) -> subprocess.CompletedProcess[str]:
    root = Path(__file__).resolve().parents[3]
    command = [sys.executable, "-m", "notifier", *argv]
    buffered = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    return subprocess.run(
        command, capture_output=True, text=True, timeout=120, cwd=root, env=buffered, check=False
    )
