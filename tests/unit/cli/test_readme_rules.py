"""The README's "Rules in one glance" is a config that loads as written, watch block included."""

from __future__ import annotations

import re
from pathlib import Path

from notifier.config import read_config_text
from tests.unit.cli.conftest import Cli

README = Path(__file__).resolve().parents[3] / "README.md"


def test_rules_in_one_glance_load_and_watch_what_they_name() -> None:
    section = README.read_text().split("## Rules in one glance", 1)[1]
    block = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert block is not None
    loaded = read_config_text(block[1], "README.md", environ={"SLACK_TOKEN": "xoxb-1"})
    watched = set(loaded.config.watch.watched())
    assert "watch:" in block[1]
    assert {kind for rule in loaded.config.rules for kind in rule.match.kinds} <= watched


def test_the_message_on_the_first_screen_is_what_rules_test_renders(
    cli: Cli, tmp_path: Path
) -> None:
    text = README.read_text()
    section = text.split("## Rules in one glance", 1)[1]
    config = tmp_path / "glance.yaml"
    config.write_text(re.search(r"```yaml\n(.*?)```", section, re.DOTALL)[1])  # type: ignore[index]
    shown = re.search(r"What arrives.*?```\n(.*?)```", text, re.DOTALL)
    assert shown is not None
    data = README.parent / "tests" / "data" / "readme"
    run = cli("rules", "test", str(config), "--old", str(data / "old.yaml"),
              "--new", str(data / "new.yaml"))  # fmt: skip
    assert run.code == 0, run.out
    message = run.out.split("--- message of rule crashloops -> ops\n", 1)[1].splitlines()
    assert shown[1].splitlines() == message[: len(shown[1].splitlines())]
