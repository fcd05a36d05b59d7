"""Through the running service, to the Slack-shaped server: a crash loop starts a thread with
its Warning Events attached, its recovery replies in that thread and updates the first message."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube
from tests.integration.service import ServiceProcess
from tests.support.slack_server import TOKEN, SlackServer

pytestmark = pytest.mark.integration

CONFIG = """
watch: {{namespaces: [{ns}], kinds: [Pod]}}
sinks:
  - {{name: slack, type: slack, token: "{token}", channel: "#ops", base_url: "{api}"}}
defaults: {{dedup_window: 0s, recovery_window: 1s}}
rules:
  - name: crashloops
    match: {{kinds: [Pod], to: [CrashLoopBackOff]}}
    sinks: [slack]
    send_resolved: true
    thread_by: object
    enrich: [events]
"""


@pytest.fixture
def slack() -> Iterator[SlackServer]:
    with SlackServer() as server:
        yield server


def _status(state: dict[str, Any], ready: bool) -> dict[str, Any]:
    container = {"name": "main", "image": "busybox:1.36", "imageID": "", "ready": ready,
                 "restartCount": 3, "state": state}  # fmt: skip
    conditions = [{"type": "Ready", "status": "True" if ready else "False"}]
    return {
        "status": {"phase": "Running", "conditions": conditions, "containerStatuses": [container]}
    }


def _wait(check: Any, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_the_resolution_replies_in_the_thread_and_updates_the_first_message(
    control_plane: ControlPlane, slack: SlackServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("threads")
    kube.create_pod(ns, "web")
    uid = kube.core.read_namespaced_pod("web", ns).metadata.uid
    involved = {"kind": "Pod", "namespace": ns, "name": "web", "uid": uid}
    kube.core.create_namespaced_event(ns, {
        "metadata": {"name": "web.backoff"}, "involvedObject": involved, "type": "Warning",
        "reason": "BackOff", "message": "Back-off restarting failed container <!channel>",
        "count": 7,
    })  # fmt: skip
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG.format(ns=ns, token=TOKEN, api=slack.api_url))
    service = ServiceProcess(config, control_plane.kubeconfig, tmp_path / "state.db").start()
    try:
        service.wait_ready()
        looping = {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 40s"}}
        kube.core.patch_namespaced_pod_status("web", ns, _status(looping, False))
        _wait(lambda: len(slack.messages()) == 1, "the crash loop was not posted")
        running = {"running": {"startedAt": "2026-11-24T10:00:00Z"}}
        kube.core.patch_namespaced_pod_status("web", ns, _status(running, True))
        _wait(lambda: len(slack.messages()) == 2 and slack.updates(), "no resolution in thread")
    finally:
        assert service.stop() == 0
    first, resolution = slack.messages()
    assert first.thread_ts is None and resolution.thread_ts == first.ts
    [(updated, text)] = slack.updates()
    assert updated == first.ts and "resolved" in text.lower()
    blocks = [
        b["text"]["text"] for b in first.blocks or [] if "text" in b and b["type"] == "section"
    ]
    events = next(text for text in blocks if text.startswith("*Warning events*"))
    assert "`BackOff` x7" in events and "&lt;!channel&gt;" in events and "<!channel>" not in events
