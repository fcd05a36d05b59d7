from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from notifier.delivery import build_delivery
from notifier.delivery.building import plan_sinks
from notifier.sinks.config import SinkConfig
from notifier.sinks.secrets import SinkBuildError
from notifier.sinks.thread_roots import MemoryThreads
from tests.unit.delivery.harness import eventually
from tests.unit.sinks.factories import notification
from tests.unit.state.helpers import open_store

configs: TypeAdapter[list[Any]] = TypeAdapter(list[SinkConfig])


def test_builds_enabled_sinks_and_delivers_through_the_outbox(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = open_store(tmp_path / "state.db")
    delivery = build_delivery(
        configs.validate_python(
            [
                {"type": "console", "name": "console"},
                {"type": "webhook", "name": "off", "url": "http://127.0.0.1:9/", "enabled": False},
            ]
        ),
        outbox=store.outbox,
        threads=store.threads,
    )
    assert not delivery.running

    delivery.start()
    assert delivery.running
    delivery.submit(notification("console", text="web-1 is Running"))
    delivery.submit(notification("off"))  # disabled: not built, so an unknown sink
    eventually(lambda: "web-1 is Running" in capsys.readouterr().out)
    assert delivery.stop(time.monotonic() + 2)
    assert not delivery.running
    store.flush()
    assert store.outbox.pending_by_sink() == {}
    store.close()


def test_without_state_it_still_delivers(capsys: pytest.CaptureFixture[str]) -> None:
    delivery = build_delivery(
        configs.validate_python([{"type": "console", "name": "console"}]),
        outbox=None,
        threads=MemoryThreads(),
    )
    delivery.start()

    delivery.submit(notification("console", text="hello"))

    eventually(lambda: "[console] hello" in capsys.readouterr().out)
    delivery.stop(time.monotonic() + 1)


def test_plan_sinks_builds_what_is_new_or_changed_and_names_what_waits() -> None:
    console = {"type": "console", "name": "console"}
    hook = {"type": "webhook", "name": "hook", "url": "http://127.0.0.1:9/a"}
    old = configs.validate_python(
        [console, hook, {"type": "console", "name": "gone"}, {**console, "name": "off-on"}]
    )
    old[3] = old[3].model_copy(update={"enabled": False})
    new = configs.validate_python(
        [
            console,  # the same: untouched
            {**hook, "url": "http://127.0.0.1:9/b", "delivery": {"concurrency": 8}},
            {**console, "name": "off-on"},  # enabled now: added
            {**console, "name": "fresh"},
        ]
    )

    changes, later = plan_sinks(old, new, MemoryThreads())

    assert [t.sink.name for t in changes.added] == ["off-on", "fresh"]
    assert [t.sink.name for t in changes.changed] == ["hook"]
    assert changes.removed == ("gone",)
    assert later == ("sinks.hook.delivery.concurrency",)
    assert not plan_sinks(new, new, MemoryThreads())[0]


def test_a_sink_that_cannot_be_built_fails_the_plan_before_anything_changes(
    tmp_path: Path,
) -> None:
    old = configs.validate_python([{"type": "console", "name": "console"}])
    new = configs.validate_python(
        [
            {"type": "console", "name": "console"},
            {"type": "webhook", "name": "hook", "url_file": str(tmp_path / "missing")},
        ]
    )
    with pytest.raises(SinkBuildError, match="sink 'hook'"):
        plan_sinks(old, new, MemoryThreads())
