"""Which containers' logs tell why a Pod is in trouble."""

from __future__ import annotations

from typing import Any

import msgspec

from notifier.kinds.containers import ContainerStatus, log_sources


def _status(name: str, **fields: Any) -> ContainerStatus:
    return msgspec.convert({"name": name, **fields}, ContainerStatus)


CRASHED = {"exitCode": 1, "reason": "Error"}


def test_a_crash_loop_reads_the_instance_before_and_a_dead_container_its_own() -> None:
    statuses = [
        _status("looping", restartCount=3, state={"waiting": {"reason": "CrashLoopBackOff"}},
                lastState={"terminated": CRASHED}),
        _status("dead", state={"terminated": {"exitCode": 137, "reason": "OOMKilled"}}),
        _status("restarted", restartCount=1, state={"running": {}},
                lastState={"terminated": CRASHED}),
    ]  # fmt: skip
    assert log_sources(statuses) == (("looping", True), ("dead", False), ("restarted", True))


def test_healthy_and_cleanly_finished_containers_have_nothing_to_tell() -> None:
    statuses = [
        _status("fine", state={"running": {}}),
        _status("done", state={"terminated": {"exitCode": 0, "reason": "Completed"}}),
        _status("restarted-cleanly", restartCount=1, state={"running": {}},
                lastState={"terminated": {"exitCode": 0, "reason": "Completed"}}),
    ]  # fmt: skip
    assert log_sources(statuses) == ()


def test_at_most_three_containers() -> None:
    dead = {"terminated": CRASHED}
    assert len(log_sources([_status(f"c{n}", state=dead) for n in range(6)])) == 3
