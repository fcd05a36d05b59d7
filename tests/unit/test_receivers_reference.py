"""Where the receivers are listed, the list is the sink types the config accepts.

Chart.yaml's description and docs/rules.md are written by
``python -m scripts.receivers_reference``, the chart's README by scripts.chart_readme
(tests/unit/test_chart_readme.py checks it is current); the README's opening is
written by hand and checked here.
"""

from __future__ import annotations

import re

import pytest
from pydantic import TypeAdapter, ValidationError

from notifier.sinks.config import SinkConfig
from scripts.chart_readme import README as CHART_README
from scripts.receivers_reference import (
    CHART,
    DOC_MARKERS,
    ROOT,
    RULES,
    chart_description,
    described,
    prose,
    receiver_types,
    replaced,
    rules_section,
    titles,
)

REGENERATE = "regenerate: python -m scripts.receivers_reference"


def test_the_types_are_what_the_config_accepts() -> None:
    sinks: TypeAdapter[object] = TypeAdapter(SinkConfig)
    with pytest.raises(ValidationError) as caught:
        sinks.validate_python({"name": "x", "type": "carrier-pigeon"})
    [error] = caught.value.errors()
    accepted = re.findall(r"'(\w+)'", str(error["ctx"]["expected_tags"]))
    assert receiver_types() == accepted


def test_chart_yaml_and_docs_list_every_receiver() -> None:
    chart = CHART.read_text()
    assert described(chart) == chart, REGENERATE
    assert "Microsoft Teams" in chart_description() and prose().endswith("or the pod log")
    rules = RULES.read_text()
    assert replaced(rules, rules_section()) == rules, REGENERATE
    assert DOC_MARKERS[0] in rules


def test_the_chart_readme_and_the_readme_name_every_receiver() -> None:
    intro = CHART_README.read_text().split("## Install", 1)[0]
    assert prose() in " ".join(intro.split())
    opening = (ROOT / "README.md").read_text().split("## ", 1)[0]
    for title in titles():
        assert title in opening.replace("**", ""), title
