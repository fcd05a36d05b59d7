"""The registry of receivers is the one list: every receiver in it is whole (its settings
model in the config, its builder, its golden renders, its docs row), every receiver package
is in it, and the config side loads without any receiver's sender."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import TypeAdapter, ValidationError

from notifier.sinks.base import Receiver
from notifier.sinks.building import build_sink
from notifier.sinks.config import SinkConfig
from notifier.sinks.registry import PACKAGES, RECEIVERS, receiver_of
from notifier.sinks.settings import SinkConfigBase
from notifier.sinks.thread_roots import MemoryThreads
from tests.golden.receivers import path_of, settings, settings_path
from tests.golden.scenarios import SCENARIOS

ROOT = Path(__file__).resolve().parents[3]
SINKS = ROOT / "notifier" / "sinks"
NAMES = [receiver.name for receiver in RECEIVERS]
# What loading the sinks' settings must not import: each receiver's sender and its libraries.
SENDERS = ("slack_sdk", "pycurl", "smtplib", "jinja2", "notifier.sinks.transport",
           "notifier.sinks.posting", "notifier.sinks.rendering")  # fmt: skip


def test_every_receiver_package_is_in_the_registry() -> None:
    declaring = sorted(
        init.parent.name
        for init in SINKS.glob("*/__init__.py")
        if re.search(r"^RECEIVER = ", init.read_text(), re.M)
    )
    assert declaring == sorted(PACKAGES)
    assert len(set(NAMES)) == len(NAMES) == len(PACKAGES)


def test_the_config_accepts_exactly_the_registry_s_types() -> None:
    with pytest.raises(ValidationError) as caught:
        TypeAdapter(SinkConfig).validate_python({"name": "x", "type": "carrier-pigeon"})
    [error] = caught.value.errors()
    assert re.findall(r"'(\w+)'", str(error["ctx"]["expected_tags"])) == NAMES


def _config(name: str) -> SinkConfigBase:
    return TypeAdapter(SinkConfig).validate_python({"name": "out", "type": name, **settings(name)})


@pytest.mark.parametrize("name", NAMES)
def test_a_receiver_s_settings_are_its_own_model(name: str) -> None:
    config = TypeAdapter(SinkConfig).validate_python(
        {"name": "out", "type": name, **settings(name)}
    )
    receiver = receiver_of(config)
    assert type(config) is receiver.config and issubclass(receiver.config, SinkConfigBase)
    assert receiver.name == name and receiver.title


@pytest.mark.parametrize("name", NAMES)
def test_a_receiver_builds_a_sink_that_shows_its_body(name: str) -> None:
    config = TypeAdapter(SinkConfig).validate_python(
        {"name": "out", "type": name, **settings(name)}
    )
    sink = build_sink(config, threads=MemoryThreads())
    try:
        assert sink.integration == name
        assert isinstance(sink, Receiver)
    finally:
        sink.close()


@pytest.mark.parametrize("name", NAMES)
def test_a_receiver_has_its_golden_files(name: str) -> None:
    assert settings_path(name).exists()
    missing = [scenario for scenario in SCENARIOS if not path_of(name, scenario).exists()]
    assert missing == [], f"run python -m tests.golden.rewrite for {name}"


@pytest.mark.parametrize("name", NAMES)
def test_a_receiver_is_documented(name: str) -> None:
    receivers_md = (ROOT / "docs" / "receivers.md").read_text()
    assert f"\n| `{name}` |" in receivers_md, "a row in docs/receivers.md's capabilities table"


def test_loading_the_sinks_settings_loads_no_sender() -> None:
    probe = (
        "import sys, notifier.sinks.config; "
        f"print(' '.join(m for m in {SENDERS!r} if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.split()
    assert loaded == []


def test_a_package_without_its_receiver_fails_the_import(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(importlib.import_module("notifier.sinks.discord"), "RECEIVER")
    monkeypatch.delitem(sys.modules, "notifier.sinks.registry")
    with pytest.raises(TypeError, match=r"notifier\.sinks\.discord declares no RECEIVER"):
        importlib.import_module("notifier.sinks.registry")
