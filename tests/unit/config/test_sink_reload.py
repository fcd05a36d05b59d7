"""A reload whose new sink cannot be built is rejected with the located error `run` and
`rules check` give (file or ConfigMap, line, key), and the last good config keeps running."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from notifier.delivery.building import build_delivery
from notifier.reload.holder import RulesHolder
from notifier.reload.polling import FileReloader
from notifier.reload.sinks import sink_stager
from notifier.sinks.thread_roots import MemoryThreads

GOOD = "sinks: [{name: console, type: console}]\nrules: [{name: r, sinks: [console]}]\n"


def with_slack(token_file: Path) -> str:
    return (
        "sinks:\n"
        "  - {name: console, type: console}\n"
        "  - name: s\n"
        "    type: slack\n"
        "    channel: '#x'\n"
        f"    token_file: {token_file}\n"
        "rules: [{name: r, sinks: [console, s]}]\n"
    )


def staged_holder(path: Path) -> RulesHolder:
    holder = RulesHolder.from_file(path)
    delivery = build_delivery(holder.current.config.sinks, outbox=None, threads=MemoryThreads())
    holder.stage_with(sink_stager(delivery, MemoryThreads()))
    return holder


def cannot_read(token_file: Path) -> str:
    return f"sink 's': cannot read token_file '{token_file}': No such file or directory"


def test_a_file_reload_with_a_sink_that_cannot_be_built_is_located_and_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(GOOD)
    holder = staged_holder(path)
    reloader, before = FileReloader(holder, path), holder.current
    missing = tmp_path / "absent" / "token"
    path.write_text(with_slack(missing))
    caplog.set_level(logging.INFO, "notifier.config")
    result = reloader.check()
    assert result is not None and not result.ok and holder.current is before
    assert [str(issue) for issue in result.issues] == [
        f"{path}:6:5: sinks[1].token_file: {cannot_read(missing)}"
    ]
    assert f"  {path}:6:5: sinks[1].token_file: " in caplog.text
    assert "the last good rules keep running" in caplog.text


def test_a_configmap_reload_is_located_in_the_configmap_s_text(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(GOOD)
    holder = staged_holder(path)
    missing = tmp_path / "absent" / "token"
    source = "configmap ops/rules (config.yaml)"
    result = holder.reload_text("# from the ConfigMap\n" + with_slack(missing), source)
    assert not result.ok
    assert [str(issue) for issue in result.issues] == [
        f"{source}:7:5: sinks[1].token_file: {cannot_read(missing)}"
    ]


def test_a_sink_that_builds_is_taken_on_reload(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(GOOD)
    holder = staged_holder(path)
    token = tmp_path / "token"
    token.write_text("xoxb-1\n")
    result = holder.reload_text(with_slack(token), "cm")
    assert result.ok and result.changed
    assert [sink.name for sink in holder.current.config.sinks] == ["console", "s"]
