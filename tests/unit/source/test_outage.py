"""An unreachable API server is said once a retry round, naming the server and the cause.

Every reflector fails alike when the API server is gone; one line a round says it
(issue #39 counted 47 lines in 30 s, one per watch per retry), and one line says
when it answers again.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import urllib3

from notifier.kinds.registry import KINDS
from notifier.objects import Kind, KubeObject
from notifier.source.client import RawClient
from notifier.source.credentials import load_access
from notifier.source.outage import Outage, cause
from notifier.source.reflector import Reflector, ReflectorSettings
from notifier.source.resources import resource_for

WATCHES = 8
ROUNDS = 4
FAST = ReflectorSettings(backoff_initial=0.05, backoff_cap=0.2, backoff_reset_after=60.0)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def refused() -> Exception:
    try:
        socket.create_connection(("127.0.0.1", _closed_port()), timeout=5)
    except OSError as err:
        return urllib3.exceptions.NewConnectionError(None, f"Failed: {err}")  # type: ignore[arg-type]
    raise AssertionError("a closed port took the connection")


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def lines_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "notifier.source"]


def test_one_line_a_round_for_every_watch_that_fails(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    outage = Outage("https://10.0.0.1:6443", clock=clock)
    err = OSError(111, "Connection refused")
    caplog.set_level(logging.INFO, "notifier.source")
    for delay in (1.0, 2.0, 4.0):  # each round: every watch fails, then waits its backoff
        for watch in range(WATCHES):
            outage.failed(watch, err, delay, lambda: None)
            clock.now += 0.01
        clock.now += delay
    assert lines_of(caplog) == [
        "cannot reach the API server at https://10.0.0.1:6443: connection refused; "
        "1 watch retrying (next in 1.0s)",
        "cannot reach the API server at https://10.0.0.1:6443: connection refused; "
        "8 watches retrying (next in 2.0s), for 1s now",
        "cannot reach the API server at https://10.0.0.1:6443: connection refused; "
        "8 watches retrying (next in 4.0s), for 3s now",
    ]
    caplog.clear()
    for watch in range(WATCHES):
        outage.reached(watch)
    assert lines_of(caplog) == [
        "the API server at https://10.0.0.1:6443 answers again (unreachable for 7s)"
    ]
    assert outage.failing == 0


def test_causes_in_words() -> None:
    assert cause(refused()) == "connection refused"
    unresolved = urllib3.exceptions.ProtocolError("Failed to resolve 'x.invalid'")
    unresolved.__cause__ = socket.gaierror(-2, "Name or service not known")
    assert cause(unresolved) == "name not resolved"


@pytest.fixture
def client(tmp_path: Path) -> RawClient:
    """A client for an API server that is not there (nothing listens on its port)."""
    server = f"https://127.0.0.1:{_closed_port()}"
    cluster = {"name": "c", "cluster": {"server": server, "insecure-skip-tls-verify": True}}
    config = {"clusters": [cluster], "contexts": [{"name": "x", "context": {"cluster": "c"}}],
              "current-context": "x", "users": [{"name": "u", "user": {"token": "t"}}]}  # fmt: skip
    config["contexts"][0]["context"]["user"] = "u"  # type: ignore[index]
    path = tmp_path / "kubeconfig"
    path.write_text(json.dumps(config))
    return RawClient(load_access(str(path)))


class Kept:
    """A store that keeps nothing: nothing is ever listed here."""

    def admit(self, obj: KubeObject) -> KubeObject:
        return obj

    def replace(self, items: list[KubeObject], *, first: bool) -> None: ...

    def upsert(self, obj: KubeObject) -> None: ...

    def delete(self, obj: KubeObject) -> None: ...


@pytest.fixture
def reflectors(client: RawClient) -> Iterator[list[Reflector[KubeObject]]]:
    stop = threading.Event()
    pods = resource_for(Kind.POD, kinds=KINDS)
    running = [
        Reflector(list_watch=pods.list_watch(f"ns-{n}"), store=Kept(),
                  client=client.sibling(), settings=FAST)
        for n in range(WATCHES)
    ]  # fmt: skip
    threads = [threading.Thread(target=r.run, args=(stop,), daemon=True) for r in running]
    for thread in threads:
        thread.start()
    yield running
    stop.set()
    for reflector in running:
        reflector.wake()
    for thread in threads:
        thread.join(10)


def wait_until(done: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "not within the timeout"
        time.sleep(0.01)


def test_reflectors_of_an_unreachable_server_say_it_once_a_round(
    client: RawClient, reflectors: list[Reflector[Any]], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "notifier.source")
    wait_until(lambda: all(r.failures_in_a_row >= ROUNDS for r in reflectors))
    lines = lines_of(caplog)
    failures = sum(r.failures_in_a_row for r in reflectors)
    assert failures >= WATCHES * ROUNDS
    # About one line a round for all 8 (a round ends at the backoff of the watch that said
    # it; the others' jitter may start the next a little early): far fewer than one a failure.
    assert 1 <= len(lines) <= failures / 4, (len(lines), failures)
    assert all(
        line.startswith(f"cannot reach the API server at {client.server}: connection refused; ")
        for line in lines
    ), lines
    assert client.outage.failing == WATCHES
