"""Stopping the service, gently or not, loses nothing: the outbox and the last-seen state."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import pytest

from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube, in_parallel
from tests.integration.service import ServiceProcess, keys_by_pod
from tests.integration.test_service import CONFIG, _crashloop
from tests.support.webhook_server import WebhookServer

pytestmark = pytest.mark.integration


def _setup(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path, count: int
) -> tuple[Kube, str, list[str], Path]:
    kube = Kube(control_plane)
    ns = kube.namespace("restart")
    pods = [f"p{i:02d}" for i in range(count)]
    in_parallel(lambda n: kube.create_pod(ns, n), pods)
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG.format(ns=ns, url=receiver.url))
    return kube, ns, pods, config


@pytest.mark.timeout(180)
def test_sigterm_during_churn_exits_zero_in_time_and_loses_nothing(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube, ns, pods, config = _setup(control_plane, receiver, tmp_path, 30)
    state = tmp_path / "state.db"
    first = ServiceProcess(config, control_plane.kubeconfig, state).start()
    first.wait_ready()

    def churn() -> None:
        for name in pods:
            _crashloop(kube, ns, name)
            time.sleep(0.05)

    churning = threading.Thread(target=churn)
    churning.start()
    time.sleep(0.6)  # mid-churn
    started = time.monotonic()
    assert first.stop(signal.SIGTERM) == 0, first.output()
    stopped_in = time.monotonic() - started
    churning.join()
    assert stopped_in < 10 + 5, f"took {stopped_in:.1f}s with a 10 s deadline"

    second = ServiceProcess(config, control_plane.kubeconfig, state).start()
    try:
        second.wait_ready()
        receiver.wait_for(lambda _: len(keys_by_pod(receiver)) >= len(pods), timeout=40)
    finally:
        assert second.stop() == 0, second.output()
    keys = keys_by_pod(receiver)
    assert set(pods) <= set(keys)
    assert all(len(keys[name]) == 1 for name in pods), "a repeat came under a new key"


@pytest.mark.timeout(180)
def test_sigkill_with_deliveries_pending_delivers_them_after_restart(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube, ns, pods, config = _setup(control_plane, receiver, tmp_path, 10)
    state = tmp_path / "state.db"
    first = ServiceProcess(config, control_plane.kubeconfig, state).start()
    first.wait_ready()
    receiver.go_down()  # the receiver is away: deliveries pile up in the outbox
    in_parallel(lambda n: _crashloop(kube, ns, n), pods)
    time.sleep(3.0)
    assert first.proc is not None
    first.proc.send_signal(signal.SIGKILL)
    first.proc.wait(10)
    receiver.come_up()
    second = ServiceProcess(config, control_plane.kubeconfig, state).start()
    try:
        second.wait_ready()
        receiver.wait_for(lambda _: len(keys_by_pod(receiver)) >= len(pods), timeout=60)
    finally:
        assert second.stop() == 0, second.output()
    assert set(pods) <= set(keys_by_pod(receiver))


ADDS = """
cluster_name: test
watch:
  namespaces: [{ns}]
  kinds: [Pod, Service]
sinks:
  - name: hook
    type: webhook
    url: {url}
rules:
  - name: created
    match:
      kinds: [Pod, Service]
      events: [added]
    sinks: [hook]
"""


@pytest.mark.timeout(180)
@pytest.mark.parametrize("stop_with", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_objects_created_while_down_are_told_as_catch_up_adds(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path, stop_with: int
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("down")
    kube.create_pod(ns, "before")
    config, state = tmp_path / "config.yaml", tmp_path / "state.db"
    config.write_text(ADDS.format(ns=ns, url=receiver.url))
    first = ServiceProcess(config, control_plane.kubeconfig, state).start()
    first.wait_ready()
    first.wait_for_output(lambda out: "initial list acted on" in out)
    assert first.stop(stop_with) in (0, -signal.SIGKILL), first.output()
    assert receiver.received() == [], "the first start's initial list must stay quiet"

    # While we are down: a Service and a Pod appear, and the Pod starts running.
    ports = [{"port": 80, "targetPort": 8080}]
    kube.core.create_namespaced_service(
        ns, {"metadata": {"name": "new-svc"}, "spec": {"ports": ports}}
    )
    kube.create_pod(ns, "new-pod")
    kube.core.patch_namespaced_pod_status("new-pod", ns, {"status": {"phase": "Running"}})

    second = ServiceProcess(config, control_plane.kubeconfig, state).start()
    try:
        second.wait_ready()
        receiver.wait_for_count(2, timeout=30)
    finally:
        assert second.stop() == 0, second.output()
    told = {(r.json()["object"]["kind"], r.json()["object"]["name"]) for r in receiver.received()}
    assert told == {("Service", "new-svc"), ("Pod", "new-pod")}
    assert {r.json()["origin"] for r in receiver.received()} == {"catch_up"}


@pytest.mark.timeout(120)
def test_a_second_process_on_one_state_file_is_refused_and_a_deleted_one_fails_health(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    _, _, _, config = _setup(control_plane, receiver, tmp_path, 1)
    state = tmp_path / "state.db"
    first = ServiceProcess(config, control_plane.kubeconfig, state).start()
    try:
        first.wait_ready()
        second = ServiceProcess(config, control_plane.kubeconfig, state).start()
        assert second.wait_exit() == 4
        assert "in use by another kube-notifier process" in second.output()

        state.unlink()
        status, body = first.get("/healthz")
        assert status == 503 and "state-writer" in body, body
        first.wait_for_output(lambda out: "was deleted or replaced while in use" in out)
    finally:
        first.stop()
