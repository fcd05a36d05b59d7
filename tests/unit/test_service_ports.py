"""The integration tests' service survives a port taken between its choice and its bind:
``ServiceProcess.wait_ready`` starts it again on a new port, as the control plane's servers
are started again (tests/unit/test_controlplane_ports.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from notifier.exits import Exit
from tests.controlplane.processes import free_port, listens
from tests.integration import service as service_module
from tests.integration.service import ServiceProcess

# The service as wait_ready sees it: it binds its port and answers /readyz, or says that the
# port is in use in the service's words (notifier/api/listening.py) and exits 6.
STAND_IN = """
import http.server, sys
from notifier.api.listening import listen_problem
port = int(sys.argv[1])
class Ready(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
problem = listen_problem("127.0.0.1", port)
if problem:
    print(f"kube-notifier: {problem}", flush=True)
    sys.exit(6)
http.server.HTTPServer(("127.0.0.1", port), Ready).serve_forever()
"""


class StandIn(ServiceProcess):
    def command(self, port: int) -> list[str]:
        return [sys.executable, "-c", STAND_IN, str(port)]


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text("sinks: [{name: out, type: console}]\nrules: [{name: all, sinks: [out]}]\n")
    return path


def test_a_service_whose_port_was_taken_is_started_again_on_another(
    config: Path, taken: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    ports = iter([taken, free_port()])
    monkeypatch.setattr(service_module, "free_port", lambda: next(ports))
    service = StandIn(config, config, "none").start()
    first = service.log_path
    try:
        service.wait_ready(timeout=30)
        assert service.port != taken and service.pid is not None
        assert listens(service.pid, service.port)
        assert "address already in use" in first.read_text()
    finally:
        service.stop()


def test_the_service_says_a_taken_port_in_the_words_the_retry_looks_for(
    config: Path, taken: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service_module, "free_port", lambda: taken)
    service = ServiceProcess(config, config, "none").start()
    assert service.wait_exit(timeout=60) == Exit.LISTEN
    assert service.port_taken(), service.output()


class Broken(ServiceProcess):
    def command(self, port: int) -> list[str]:
        return [sys.executable, "-c", "print('no config'); raise SystemExit(5)"]


def test_a_service_that_exits_for_another_reason_is_not_started_again(config: Path) -> None:
    service = Broken(config, config, "none").start()
    first = service.port
    with pytest.raises(AssertionError, match="exited before it was ready:\nno config"):
        service.wait_ready(timeout=30)
    assert service.port == first
