"""The same incident on kwok and on the real node gives the same messages: kwok's stages
(tests/controlplane/stages/) follow what the real kubelet writes (tests/data/kubelet/).
The crash loop and the eviction play on kwok together, watched by one notifier."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.controlplane import incidents
from tests.controlplane.cluster import ControlPlane
from tests.controlplane.incidents import container, pod, pod_spec
from tests.controlplane.processes import wait_until
from tests.controlplane.scenario import (
    QUIET_SECONDS,
    Notifier,
    Outcome,
    Scenario,
    incident_of,
)
from tests.integration.realnode.conftest import CONFIGS

pytestmark = [pytest.mark.integration, pytest.mark.fullcluster, pytest.mark.timeout(240)]

CRASH_LOOP, EVICTION = "crash-loop", "eviction"


def _restarts(plane: ControlPlane, namespace: str, name: str) -> int:
    body = json.loads(plane.kubectl("get", "pod", "-n", namespace, name, "-o", "json"))
    return max(c.get("restartCount", 0) for c in body["status"].get("containerStatuses", [{}]))


def _phase(plane: ControlPlane, namespace: str, name: str) -> str:
    body = json.loads(plane.kubectl("get", "pod", "-n", namespace, name, "-o", "json"))
    return str(body["status"].get("phase", ""))


def _quiet(notifier: Notifier, namespaces: set[str], since: float) -> bool:
    """Nothing about ``namespaces`` for QUIET_SECONDS (the session's cluster has others),
    counted from ``since`` at the earliest (a group_wait may hold the first message)."""
    arrivals = [
        request.arrived_at
        for request in notifier.receiver.received()
        if incident_of(request.json()) in namespaces
    ]
    return time.monotonic() - max(arrivals, default=since) >= QUIET_SECONDS


def _create(plane: ControlPlane, namespace: str, manifest: dict[str, Any], stage: str) -> None:
    manifest["spec"]["nodeSelector"] = {"type": "kwok"}
    manifest["metadata"]["labels"] = {"kube-notifier.test/stage": stage}
    plane.kubectl("create", "namespace", namespace)
    plane.kubectl("apply", "-n", namespace, "-f", "-", input_text=json.dumps(manifest))


def _stage_as_played(outcome: Outcome, namespace: str) -> str:
    """kwok's stage for the crash loop the real kubelet played. Whether the kubelet posts
    the first run Running and Ready before it exits is a race (the container exits within
    milliseconds): Ready first is kwok's ``crashloop`` (told ``Ready -> CrashLoopBackOff``),
    never Ready before the first back-off is ``crash-at-start`` (told from Pending). The
    back-off starts with the container ``terminated``, before ``CrashLoopBackOff`` shows:
    a Ready after it is the restart's."""
    for change in outcome.recorder.story("Pod", namespace, "crasher"):
        if "Ready=True" in change.summary["conditions"]:
            return "crashloop"
        if any(_backing_off(state) for state in change.summary["containers"].values()):
            break
    return "crash-at-start"


def _backing_off(state: str) -> bool:
    return state.startswith("terminated:") or "CrashLoopBackOff" in state


def test_a_crash_loop_and_an_eviction_on_kwok_are_told_as_on_the_real_node(
    outcome: Outcome, full_cluster: ControlPlane, tmp_path: Path
) -> None:
    notifier = Notifier("kwok", CONFIGS["example"], full_cluster, tmp_path)
    try:
        started = time.monotonic()
        crasher = pod("crasher", pod_spec(container("crash")))
        _create(full_cluster, CRASH_LOOP, crasher, _stage_as_played(outcome, CRASH_LOOP))
        _create(full_cluster, EVICTION, incidents.filler(), "evict")
        wait_until(lambda: _restarts(full_cluster, CRASH_LOOP, "crasher") >= 3, 60, "3 restarts")
        wait_until(lambda: _phase(full_cluster, EVICTION, "filler") == "Failed", 60, "evicted")
        wait_until(
            lambda: _quiet(notifier, {CRASH_LOOP, EVICTION}, started),
            QUIET_SECONDS + 60,
            "the notifier quiet",
        )
        on_kwok = Scenario.told_by(notifier)
    finally:
        notifier.stop()
    for namespace in (CRASH_LOOP, EVICTION):
        told = on_kwok[namespace].messages if namespace in on_kwok else []
        expected = outcome.of("example", namespace).messages
        if namespace == EVICTION and _restarted(outcome, EVICTION, "filler"):
            told, expected = [_head(m) for m in told], [_head(m) for m in expected]
        assert told == expected, namespace


def _restarted(outcome: Outcome, namespace: str, name: str) -> bool:
    """Whether the real kubelet restarted the pod's container on its way to the eviction.
    The eviction manager kills an emptyDir's over-user at once (SIGKILL, exit 137) and the
    pod worker may start the container again before the pod is failed: a race, seen on a
    loaded machine, that kwok's ``evict`` stage does not play. The message then lists the
    restart's states after ``Evicted`` too, and only its head can match kwok's."""
    return any(
        not state.endswith("restarts 0")
        for change in outcome.recorder.story("Pod", namespace, name)
        for state in change.summary["containers"].values()
    )


def _head(message: str) -> str:
    """A transition's message up to the first state it reached: "... Running -> Evicted"."""
    before, _, after = message.partition(" -> ")
    return f"{before} -> {after.split(', ')[0]}" if after else message
