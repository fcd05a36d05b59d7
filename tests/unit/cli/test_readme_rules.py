"""The README's "Rules in one glance" is a config that loads as written, watch block included."""

from __future__ import annotations

import re
from pathlib import Path

from notifier.config import read_config_text

README = Path(__file__).resolve().parents[3] / "README.md"


def test_rules_in_one_glance_load_and_watch_what_they_name() -> None:
    section = README.read_text().split("## Rules in one glance", 1)[1]
    block = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert block is not None
    loaded = read_config_text(block[1], "README.md", environ={"SLACK_TOKEN": "xoxb-1"})
    watched = set(loaded.config.watch.watched())
    assert "watch:" in block[1]
    assert {kind for rule in loaded.config.rules for kind in rule.match.kinds} <= watched
