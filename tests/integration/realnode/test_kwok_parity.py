"""The same incident on kwok and on the real node gives the same messages: kwok's stages
(tests/controlplane/stages/) follow what the real kubelet writes (tests/data/kubelet/)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

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


def _restarts(plane: ControlPlane, namespace: str, name: str) -> int:
    body = json.loads(plane.kubectl("get", "pod", "-n", namespace, name, "-o", "json"))
    return max(c.get("restartCount", 0) for c in body["status"].get("containerStatuses", [{}]))


def _quiet(notifier: Notifier, namespace: str, since: float) -> bool:
    """Nothing about ``namespace`` for QUIET_SECONDS (the session's cluster has others),
    counted from ``since`` at the earliest (a group_wait may hold the first message)."""
    arrivals = [
        request.arrived_at
        for request in notifier.receiver.received()
        if incident_of(request.json()) == namespace
    ]
    return time.monotonic() - max(arrivals, default=since) >= QUIET_SECONDS


def _stage_as_played(outcome: Outcome, namespace: str) -> str:
    """kwok's stage for the crash loop the real kubelet played. Whether the kubelet posts
    the first run Running and Ready before it exits is a race (the container exits within
    milliseconds): Ready first is kwok's ``crashloop`` (told ``Ready -> CrashLoopBackOff``),
    never Ready before the first back-off is ``crash-at-start`` (told from Pending)."""
    for change in outcome.recorder.story("Pod", namespace, "crasher"):
        if "Ready=True" in change.summary["conditions"]:
            return "crashloop"
        if any("CrashLoopBackOff" in state for state in change.summary["containers"].values()):
            break
    return "crash-at-start"


def test_a_crash_loop_on_kwok_is_told_as_on_the_real_node(
    outcome: Outcome, full_cluster: ControlPlane, tmp_path: Path
) -> None:
    namespace = "crash-loop"
    full_cluster.kubectl("create", "namespace", namespace)
    notifier = Notifier("kwok", CONFIGS["example"], full_cluster, tmp_path)
    try:
        crasher = pod("crasher", pod_spec(container("crash"), nodeSelector={"type": "kwok"}))
        stage = _stage_as_played(outcome, namespace)
        crasher["metadata"]["labels"] = {"kube-notifier.test/stage": stage}
        started = time.monotonic()
        full_cluster.kubectl("apply", "-n", namespace, "-f", "-", input_text=json.dumps(crasher))
        wait_until(lambda: _restarts(full_cluster, namespace, "crasher") >= 3, 60, "3 restarts")
        wait_until(
            lambda: _quiet(notifier, namespace, started), QUIET_SECONDS + 60, "the notifier quiet"
        )
        on_kwok = Scenario.told_by(notifier).get(namespace)
    finally:
        notifier.stop()
    on_real = outcome.of("example", namespace)
    assert (on_kwok.messages if on_kwok else []) == on_real.messages
