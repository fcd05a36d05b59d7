"""The chart's README is generated from values.yaml, and every value has its comment."""

from __future__ import annotations

from scripts.chart_readme import CHART, README, render, undocumented


def test_chart_readme_is_current() -> None:
    assert README.read_text() == render(), "regenerate: python -m scripts.chart_readme"


def test_every_value_is_documented_line_by_line() -> None:
    assert undocumented((CHART / "values.yaml").read_text()) == []


def test_readme_has_the_sections_a_user_looks_for() -> None:
    text = README.read_text()
    for heading in ("## Install", "## Upgrade", "## Uninstall", "## Values"):
        assert heading in text
    assert "| `rbac.extraRules` | `[]` |" in text
