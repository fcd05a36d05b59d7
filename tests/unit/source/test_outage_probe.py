"""A watch deep in its backoff retries as soon as the API server answers again.

After a long outage every watch waits up to 30 s between tries; the outage's
prober asks the server itself every second and wakes them when it answers,
so readiness (and the page's banner) follows the server within seconds.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from notifier.kinds.registry import KINDS
from notifier.objects import Kind, KubeObject
from notifier.source.client import RawClient
from notifier.source.credentials import load_access
from notifier.source.outage import Outage
from notifier.source.reflector import Reflector, ReflectorSettings
from notifier.source.resources import resource_for
from notifier.source.watcher import Watcher
from notifier.supervision import crashed, forget_crashes
from tests.support.webhook_server import WebhookServer
from tests.unit.source.test_outage import Kept, _closed_port, wait_until

LONG = ReflectorSettings(backoff_initial=600.0, backoff_cap=600.0)  # a retry only when woken


def kubeconfig(tmp_path: Path, server: str) -> Path:
    cluster = {"name": "c", "cluster": {"server": server, "insecure-skip-tls-verify": True}}
    config = {"clusters": [cluster], "contexts": [{"name": "x", "context": {"cluster": "c"}}],
              "current-context": "x", "users": [{"name": "u", "user": {"token": "t"}}]}  # fmt: skip
    config["contexts"][0]["context"]["user"] = "u"  # type: ignore[index]
    path = tmp_path / "kubeconfig"
    path.write_text(json.dumps(config))
    return path


@pytest.fixture
def answering() -> threading.Event:
    """What the prober hears: the server answers once this is set."""
    return threading.Event()


@pytest.fixture
def client(tmp_path: Path, answering: threading.Event) -> RawClient:
    """A client for a server nothing listens for, whose prober asks ``answering``."""
    server = f"https://127.0.0.1:{_closed_port()}"
    outage = Outage(server, probe=answering.is_set, probe_every=0.02)
    return RawClient(load_access(str(kubeconfig(tmp_path, server))), outage)


@pytest.fixture
def reflector(client: RawClient) -> Iterator[Reflector[KubeObject]]:
    pods = resource_for(Kind.POD, kinds=KINDS)
    running = Reflector(list_watch=pods.list_watch("ns"), store=Kept(), client=client,
                        settings=LONG)  # fmt: skip
    stop = threading.Event()
    thread = threading.Thread(target=running.run, args=(stop,), daemon=True)
    thread.start()
    yield running
    stop.set()
    running.wake()
    thread.join(10)
    assert not thread.is_alive()


def test_a_watch_in_a_long_backoff_retries_once_the_server_answers(
    reflector: Reflector[KubeObject], answering: threading.Event, client: RawClient
) -> None:
    wait_until(lambda: reflector.failures_in_a_row == 1)  # now waiting its 600 s
    assert client.outage.failing == 1
    answering.set()  # the prober hears the server: the watch tries again at once
    wait_until(lambda: reflector.failures_in_a_row >= 2, timeout=10)


def test_a_stopped_watch_leaves_the_outage_and_its_prober_ends(
    client: RawClient, tmp_path: Path
) -> None:
    pods = resource_for(Kind.POD, kinds=KINDS)
    watcher = Watcher("w", pods.list_watch("ns"), Kept(), client, settings=LONG)
    watcher.start()
    wait_until(lambda: watcher.reflector.failures_in_a_row == 1)
    watcher.stop(timeout=10)  # wakes it out of its 600 s wait
    assert not watcher.alive
    assert client.outage.failing == 0
    wait_until(lambda: not any(t.name == "apiserver-probe" for t in threading.enumerate()))


@pytest.mark.parametrize(
    ("status", "answers"), [(200, True), (403, True), (500, False), (503, False)]
)
def test_the_probe_hears_any_answer_but_a_server_error(
    tmp_path: Path, status: int, answers: bool
) -> None:
    with WebhookServer() as server:
        server.answer(status, times=None)
        client = RawClient(load_access(str(kubeconfig(tmp_path, server.base_url))))
        assert client.answers() is answers
        assert [r.path for r in server.received()] == ["/readyz"]


def test_the_probe_hears_nothing_from_a_closed_port(tmp_path: Path) -> None:
    server = f"http://127.0.0.1:{_closed_port()}"
    assert RawClient(load_access(str(kubeconfig(tmp_path, server)))).answers() is False


def test_a_server_back_but_refusing_the_watch_is_reached_and_probed_no_more(
    tmp_path: Path,
) -> None:
    """Woken, the watch is refused (403): the server answered it, so the outage is over for
    it and nothing wakes it again every second (it backs off as any refused watch)."""
    with WebhookServer() as server:
        server.answer(403, times=None)
        server.go_down()
        client = RawClient(load_access(str(kubeconfig(tmp_path, server.base_url))))
        pods = resource_for(Kind.POD, kinds=KINDS)
        watcher = Watcher("w", pods.list_watch("ns"), Kept(), client, settings=LONG)
        watcher.start()
        try:
            wait_until(lambda: client.outage.failing == 1)
            server.come_up()  # the real probe hears 403: an answer
            wait_until(lambda: client.outage.failing == 0, timeout=10)
            wait_until(lambda: not any(t.name == "apiserver-probe" for t in threading.enumerate()))
            lists = [r for r in server.received() if r.path.startswith("/api/v1/")]
            assert len(lists) == 1 and watcher.reflector.failures_in_a_row == 2
        finally:
            watcher.stop(timeout=10)


def test_a_prober_that_died_is_started_again_by_the_next_failure() -> None:
    asked = iter([False, True])  # the first ask fails of a bug, the next one hears the server

    def probe() -> bool:
        if not next(asked):
            raise RuntimeError("a bug in the probe")
        return True

    outage = Outage("https://127.0.0.1:1", probe=probe, probe_every=0.01)
    woken = threading.Event()
    outage.failed("pods", OSError(111, "Connection refused"), 30.0, lambda: None)
    wait_until(lambda: outage._prober is None)  # died of its error, its place freed
    outage.failed("pods", OSError(111, "Connection refused"), 30.0, woken.set)
    assert woken.wait(5), "a new prober heard the server and woke the watch"
    assert "apiserver-probe" in crashed()  # /healthz was told of the death
    forget_crashes()
