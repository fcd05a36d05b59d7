"""``kube-notifier run`` end to end: real API server, real webhook receiver, real process."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube
from tests.integration.service import ServiceProcess
from tests.support.tcp_proxy import TcpProxy
from tests.support.webhook_server import WebhookServer
from tests.unit.test_metrics_catalogue import documented

pytestmark = pytest.mark.integration

CONFIG = """
cluster_name: test
watch:
  namespaces: [{ns}]
sinks:
  - name: hook
    type: webhook
    url: {url}
rules:
  - name: crashloops
    match:
      kinds: [Pod]
      to: [CrashLoopBackOff]
    sinks: [hook]
  - name: pod-deletes
    match:
      kinds: [Pod]
      events: [deleted]
    sinks: [hook]
"""


RULE_BY_TEAM = """
  - name: payments-crashloops
    match:
      kinds: [Pod]
      namespace_selector: team=payments
      to: [CrashLoopBackOff]
    sinks: [hook]
"""


def _crashloop(kube: Kube, ns: str, name: str) -> None:
    """Make a pod's container wait in CrashLoopBackOff, as a kubelet would report it."""
    status = {
        "status": {
            "phase": "Running",
            "containerStatuses": [
                {
                    "name": "main",
                    "image": "busybox:1.36",
                    "imageID": "",
                    "ready": False,
                    "restartCount": 4,
                    "state": {
                        "waiting": {"reason": "CrashLoopBackOff", "message": "back-off 1m20s"}
                    },
                    "lastState": {"terminated": {"exitCode": 1, "reason": "Error"}},
                }
            ],
        }
    }
    kube.core.patch_namespaced_pod_status(name, ns, status)


def _config(tmp_path: Path, ns: str, url: str) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(CONFIG.format(ns=ns, url=url))
    return path


def _pods_in(requests: list[object]) -> list[str]:
    names = []
    for request in requests:
        body = request.json()  # type: ignore[attr-defined]
        names.append(body["object"]["name"] if "object" in body else str(body))
    return names


def test_ready_after_sync_metrics_parse_and_sigterm_exits_zero(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("svc")
    service = ServiceProcess(
        _config(tmp_path, ns, receiver.url), control_plane.kubeconfig, tmp_path / "state.db"
    ).start()
    try:
        service.wait_ready()
        assert service.get("/healthz")[0] == 200
        status, text = service.get("/metrics")
        assert status == 200
        served = {(f.name, f.type) for f in text_string_to_metric_families(text)}
        # The text format strips _total from counter families and serves info as a gauge.
        catalogue = {
            (name, "gauge") if kind == "info" else (re.sub(r"_total$", "", name), kind)
            for name, kind, _ in documented()
        }
        assert catalogue <= served, catalogue - served
    finally:
        assert service.stop() == 0, service.output()


def test_quiet_start_then_live_crashloop_is_delivered_and_restart_catches_up(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("svc")
    for name in ("old1", "old2", "live", "gone-while-down"):
        kube.create_pod(ns, name)
    _crashloop(kube, ns, "old1")  # already failing before we start: no message for it
    config, state = _config(tmp_path, ns, receiver.url), tmp_path / "state.db"

    first = ServiceProcess(config, control_plane.kubeconfig, state).start()
    try:
        first.wait_ready()
        time.sleep(1.0)
        assert receiver.received() == [], "initial list must stay quiet"
        _crashloop(kube, ns, "live")
        requests = receiver.wait_for_count(1, timeout=20)
        assert len(requests) == 1 and "live" in requests[0].body.decode()
    finally:
        assert first.stop() == 0, first.output()

    # While we are down: one pod starts crash-looping, one is deleted.
    _crashloop(kube, ns, "old2")
    kube.delete_pod(ns, "gone-while-down")
    second = ServiceProcess(config, control_plane.kubeconfig, state).start()
    try:
        second.wait_ready()
        requests = receiver.wait_for_count(3, timeout=20)
        time.sleep(1.0)
        later = receiver.received()[1:]
        bodies = sorted(r.body.decode() for r in later)
        assert len(later) == 2, bodies
        assert any("old2" in b for b in bodies) and any("gone-while-down" in b for b in bodies)
        assert all("catch_up" in b for b in bodies)
    finally:
        assert second.stop() == 0, second.output()


def test_dead_letters_are_replayed_beside_the_running_service(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("dead")
    for name in ("a", "b"):
        kube.create_pod(ns, name)
    config, state = _config(tmp_path, ns, receiver.url), tmp_path / "state.db"
    receiver.answer(400, times=None)  # the receiver refuses: given up on at once
    service = ServiceProcess(config, control_plane.kubeconfig, state).start()
    try:
        service.wait_ready()
        for name in ("a", "b"):
            _crashloop(kube, ns, name)
        cli = [sys.executable, "-m", "notifier", "dead-letters"]
        where = ["--config", str(config), "--state", str(state)]
        deadline = time.monotonic() + 20
        while len(listed := _run(*cli, "list", *where, "--json").splitlines()) < 2:
            assert time.monotonic() < deadline, listed
            time.sleep(0.3)
        assert sorted(json.loads(line)["ordering_key"] for line in listed) == [
            f"Pod/{ns}/a",
            f"Pod/{ns}/b",
        ]

        receiver.clear_answers()  # mended
        replayed = _run(*cli, "replay", *where)
        assert replayed.splitlines()[-1] == "sent 2, left 0"
        accepted = [r for r in receiver.received() if r.status == 200]
        assert sorted(_pods_in(accepted)) == ["a", "b"]
        assert _run(*cli, "list", *where).splitlines()[-1] == "0 dead letters"
        kube.delete_pod(ns, "b")  # and the service delivers on, undisturbed
        receiver.wait_for(lambda rs: sum(1 for r in rs if r.status == 200) == 3, timeout=20)
    finally:
        assert service.stop() == 0, service.output()


def _run(*argv: str) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_identity_without_list_permission_gets_a_clear_error(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("svc")
    nobody = control_plane.kubeconfig_for("nobody")
    service = ServiceProcess(_config(tmp_path, ns, receiver.url), nobody, "none").start()
    code = service.wait_exit(30)
    assert code == 3
    assert "not allowed to list pods" in service.output()
    assert "Traceback" not in service.output()


def test_broken_config_exits_with_the_loader_message(
    control_plane: ControlPlane, tmp_path: Path
) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("rules:\n  - name: x\n    match: {kinds: [Pood]}\n    sinks: [nowhere]\n")
    service = ServiceProcess(path, control_plane.kubeconfig, "none").start()
    assert service.wait_exit(30) == 5  # Exit.CONFIG
    assert "config.yaml" in service.output() and "Pood" in service.output()


def test_a_sink_that_cannot_be_built_exits_with_a_config_error(
    control_plane: ControlPlane, tmp_path: Path
) -> None:
    path = tmp_path / "config.yaml"
    missing = tmp_path / "no-such-secret"
    path.write_text(
        f"sinks:\n  - {{name: hook, type: webhook, url_file: {missing}}}\n"
        "rules:\n  - {name: all, sinks: [hook]}\n"
    )
    service = ServiceProcess(path, control_plane.kubeconfig, tmp_path / "state.db").start()
    assert service.wait_exit(30) == 5  # Exit.CONFIG
    assert "sink 'hook'" in service.output() and "no-such-secret" in service.output()
    assert "Traceback" not in service.output()


def test_sigterm_twice_ends_at_once(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("svc")
    service = ServiceProcess(
        _config(tmp_path, ns, receiver.url), control_plane.kubeconfig, "none"
    ).start()
    service.wait_ready()
    assert service.proc is not None
    service.proc.send_signal(signal.SIGTERM)
    assert service.stop(signal.SIGTERM, timeout=10) in (0, 1)


def test_health_tells_the_truth_when_the_api_server_goes_away(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    """Not ready before the first sync and while watches are stale; alive throughout."""
    kube = Kube(control_plane)
    ns = kube.namespace("svc")
    proxy = TcpProxy(control_plane.apiserver_port)
    proxy.cut()
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        control_plane.kubeconfig.read_text().replace(
            f":{control_plane.apiserver_port}", f":{proxy.port}"
        )
    )
    config = _config(tmp_path, ns, receiver.url)
    extra = ["--stale-after", "3", "--watchdog", "2"]
    service = ServiceProcess(config, kubeconfig, "none", extra=extra).start()
    try:
        _wait_status(service, "/healthz", 200)
        status, body = service.get("/readyz")
        assert status == 503 and "initial list not done" in body
        proxy.restore()
        _wait_status(service, "/readyz", 200)
        proxy.cut()
        _wait_status(service, "/readyz", 503, timeout=20)
        assert service.get("/healthz")[0] == 200
        proxy.restore()
        _wait_status(service, "/readyz", 200, timeout=30)
    finally:
        proxy.close()
        assert service.stop() == 0, service.output()


def _wait_status(service: ServiceProcess, path: str, want: int, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    last: tuple[int, str] = (0, "")
    while time.monotonic() < deadline:
        try:
            last = service.get(path)
            if last[0] == want:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"{path} never answered {want}; last {last}\n{service.output()[-2000:]}")


def test_namespace_selector_routes_by_the_namespaces_labels(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    payments, other = kube.namespace("pay"), kube.namespace("other")
    kube.core.patch_namespace(payments, {"metadata": {"labels": {"team": "payments"}}})
    config = tmp_path / "config.yaml"
    config.write_text(f"""
watch:
  namespaces: [{payments}, {other}]
sinks:
  - name: hook
    type: webhook
    url: {receiver.url}
rules:
{RULE_BY_TEAM}""")
    for ns in (payments, other):
        kube.create_pod(ns, "api")
    service = ServiceProcess(config, control_plane.kubeconfig, "none").start()
    try:
        service.wait_ready()
        checks = {c["name"]: c["ok"] for c in json.loads(service.get("/readyz")[1])["checks"]}
        assert checks["synced-namespace-labels"] is True  # ready waits for the labels too
        _crashloop(kube, other, "api")
        _crashloop(kube, payments, "api")
        requests = receiver.wait_for_count(1, timeout=20)
        time.sleep(1.0)
        assert len(receiver.received()) == 1
        assert payments in requests[0].body.decode()
    finally:
        assert service.stop() == 0, service.output()


def test_secrets_never_reach_the_logs_and_one_correlation_id_ties_match_to_delivery(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("secret")
    secrets = {
        "url_password": "pw-4a1e9c",
        "path": "T00-B00-Xsecretpath",
        "hmac": "hmac-77f3",
        "slack": "xoxb-1111-2222-verysecret",
    }
    url = (
        receiver.url.replace("http://", f"http://hook:{secrets['url_password']}@")
        + f"/{secrets['path']}"
    )
    config = tmp_path / "config.yaml"
    config.write_text(f"""
watch:
  namespaces: [{ns}]
sinks:
  - name: hook
    type: webhook
    url: ${{KN_TEST_URL}}
    hmac_secret: ${{KN_TEST_HMAC}}
    delivery: {{backoff_initial_seconds: 0.1}}
  - name: chat
    type: slack
    channel: "#ops"
    token: ${{KN_TEST_SLACK}}
    base_url: http://127.0.0.1:9/api/
    delivery: {{max_attempts: 2, backoff_initial_seconds: 0.1, min_interval_seconds: 0}}
rules:
  - name: crashloops
    match: {{kinds: [Pod], to: [CrashLoopBackOff]}}
    sinks: [hook, chat]
""")
    os.environ.update(KN_TEST_URL=url, KN_TEST_HMAC=secrets["hmac"], KN_TEST_SLACK=secrets["slack"])
    receiver.answer(500, times=2)  # failures get logged: with the URL masked
    kube.create_pod(ns, "api")
    service = ServiceProcess(
        config, control_plane.kubeconfig, "none", extra=["--log-level", "debug"]
    )
    try:
        service.start().wait_ready()
        _crashloop(kube, ns, "api")
        receiver.wait_for(lambda reqs: any(r.status == 200 for r in reqs), timeout=30)
        time.sleep(2.0)  # the Slack sink gives up on its unreachable server meanwhile
    finally:
        for name in ("KN_TEST_URL", "KN_TEST_HMAC", "KN_TEST_SLACK"):
            os.environ.pop(name, None)
        assert service.stop() == 0, service.output()
    logs = service.output()
    for value in secrets.values():
        assert value not in logs, f"secret {value!r} was logged"
    entries = [json.loads(line) for line in logs.splitlines() if line.startswith("{")]
    failures = [e for e in entries if e["level"] in ("warning", "info") and "failed" in e["msg"]]
    assert len(failures) >= 2, "the error paths (where a URL or token could leak) never ran"
    matched = [e for e in entries if e["logger"] == "notifier.rules" and "crashloops" in e["msg"]]
    assert matched, "no log line for the rule match"
    correlation = matched[0]["correlation_id"]
    delivered = [
        e for e in entries if e.get("correlation_id") == correlation and "delivered" in e["msg"]
    ]
    assert delivered, f"no delivery log line carries correlation id {correlation}"


def test_debug_decisions_show_what_matched_and_are_off_by_default(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("debug")
    kube.create_pod(ns, "api")
    kube.create_pod(ns, "old")
    _crashloop(kube, ns, "old")  # already failing at start: matched, but quiet (startup)
    config = _config(tmp_path, ns, receiver.url)
    plain = ServiceProcess(config, control_plane.kubeconfig, "none").start()
    try:
        plain.wait_ready()
        assert plain.get("/debug/decisions")[0] == 404
    finally:
        assert plain.stop() == 0
    service = ServiceProcess(config, control_plane.kubeconfig, "none", extra=["--debug-decisions"])
    try:
        service.start().wait_ready()
        _crashloop(kube, ns, "api")
        receiver.wait_for_count(1, timeout=20)
        decisions = json.loads(service.get("/debug/decisions")[1])["decisions"]
        crash = next(
            d for d in decisions if "CrashLoopBackOff" in d["entered"] and d["origin"] == "live"
        )
        assert crash["object"] == f"Pod/{ns}/api"
        assert [(n["rule"], n["sink"]) for n in crash["notifications"]] == [("crashloops", "hook")]
        assert crash["matched"] == ["crashloops"]
        start = next(
            d for d in decisions if d["origin"] == "initial_list" and d["object"] == f"Pod/{ns}/old"
        )
        assert (
            start["notifications"] == []
            and {"rule": "", "reason": "startup"} in start["suppressed"]
        )
    finally:
        assert service.stop() == 0, service.output()
