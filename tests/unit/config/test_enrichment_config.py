"""The enrichment: section fails at load with the place named, like every section."""

from __future__ import annotations

import pytest

from notifier.config.errors import ConfigError
from notifier.config.loading import LoadedConfig, read_config_text

CONFIG = """
sinks: [{name: out, type: console}]
rules: [{name: crashes, match: {kinds: [Pod]}, sinks: [out], enrich: [logs]}]
enrichment:
%s
"""


def _load(section: str) -> LoadedConfig:
    return read_config_text(CONFIG % section, "config.yaml")


@pytest.mark.parametrize(
    ("section", "error"),
    [
        ("  timeout_seconds: 600", "enrichment.timeout_seconds"),
        ("  log_bytes: 100000000", "enrichment.log_bytes"),
        ("  colour: red", "enrichment.colour"),
        ("  redact: [{pattern: '(a)\\1'}]", "invalid redaction pattern"),
    ],
)
def test_bad_settings_fail_at_load_naming_the_key(section: str, error: str) -> None:
    with pytest.raises(ConfigError, match=error.replace(".", r"\.").replace("(", r"\(")):
        _load(section)


def test_settings_load_and_the_parts_asked_are_listed_with_their_rules() -> None:
    loaded = _load("  log_lines: 50")
    assert loaded.config.enrichment.log_lines == 50
    assert loaded.config.context_parts() == {"logs": ["crashes"]}
