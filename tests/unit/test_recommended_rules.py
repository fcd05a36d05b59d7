"""The real-node tier runs the rules docs/rules.md recommends: its file is the docs' block."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.unit.rules.test_incidents import recommended_text

ROOT = Path(__file__).resolve().parents[2]


def test_the_real_node_tier_runs_the_recommended_rules_word_for_word() -> None:
    tier = ROOT / "tests" / "controlplane" / "rules" / "documented.yaml"
    assert yaml.safe_load(tier.read_text()) == yaml.safe_load(recommended_text())
