"""One reflector serves every watch: kinds, one ConfigMap by name, the namespaces' labels.

A scripted API client stands in for the server here (each request answered
from a list the test writes); the same code runs against kube-apiserver in the
integration tests.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

from notifier.source.client import ApiError
from notifier.source.configmaps import ConfigMap, WatchedConfigMap
from notifier.source.namespaces import NamespaceLabels
from notifier.source.outage import Outage
from notifier.source.reflector import FAILING_AFTER, ReflectorSettings

FAST = ReflectorSettings(backoff_initial=0.01, backoff_cap=0.02)


def _cm(version: str, **data: str) -> dict[str, Any]:
    return {"kind": "ConfigMap", "metadata": {"name": "rules", "resourceVersion": version},
            "data": data}  # fmt: skip


def _line(kind: str, obj: dict[str, Any]) -> bytes:
    return json.dumps({"type": kind, "object": obj}).encode()


class ScriptedClient:
    """Answers each request with the next step of the script; records what was asked."""

    def __init__(self, steps: list[Callable[[], Any]]) -> None:
        self.steps = steps
        self.asked: list[tuple[str, dict[str, str]]] = []
        self.done = threading.Event()  # the script ran out
        self.closed = threading.Event()
        self.outage = Outage("https://scripted.invalid")

    def sibling(self) -> ScriptedClient:
        return self

    def close_streams(self) -> None:
        self.closed.set()

    def get(self, path: str, query: dict[str, str]) -> bytes:
        self.asked.append(("list", query))
        result: bytes = self._next()
        return result

    def stream_lines(
        self, path: str, query: dict[str, str], read_timeout: float,
        on_open: Callable[[], None] = lambda: None,
    ) -> Iterator[bytes]:  # fmt: skip
        self.asked.append(("watch", query))
        lines: list[bytes] = self._next()
        on_open()
        yield from lines

    def _next(self) -> Any:
        if not self.steps:
            self.done.set()
            return self.quiet()
        return self.steps.pop(0)()

    def quiet(self) -> Iterator[bytes]:
        """A watch that stays open with nothing to say, until the streams are closed."""
        self.closed.wait()
        raise ConnectionError("closed")
        yield b""


def _listing(*items: dict[str, Any], version: str) -> Callable[[], bytes]:
    body = {"metadata": {"resourceVersion": version}, "items": list(items)}
    return lambda: json.dumps(body).encode()


def _fails(status: int) -> Callable[[], Any]:
    def fail() -> Any:
        raise ApiError(status, "NotFound", "not served", None)

    return fail


def test_a_configmap_watch_resumes_from_its_version_and_relists_only_on_410() -> None:
    seen: list[dict[str, str]] = []
    gone = {"kind": "Status", "code": 410, "reason": "Expired"}
    client = ScriptedClient([
        _listing(_cm("10", rules="a"), version="10"),
        lambda: [_line("MODIFIED", _cm("11", rules="b")), _line("BOOKMARK", _cm("15"))],
        lambda: [_line("ERROR", gone)],
        _listing(_cm("20", rules="c"), version="20"),
        lambda: [_line("DELETED", _cm("21", rules="c"))],
    ])  # fmt: skip
    watched = WatchedConfigMap(
        client, "configmap", "ops", "rules", lambda cm: seen.append(dict(cm.data)),  # type: ignore[arg-type]
        settings=FAST,
    )  # fmt: skip
    watched.start()
    assert client.done.wait(10)
    watched.stop()
    assert seen == [{"rules": "a"}, {"rules": "b"}, {"rules": "c"}, {}]
    asked = [(what, q.get("resourceVersion", "")) for what, q in client.asked]
    assert asked[:5] == [("list", ""), ("watch", "10"), ("watch", "15"), ("list", ""),
                         ("watch", "20")]  # fmt: skip
    assert all(q["fieldSelector"] == "metadata.name=rules" for _, q in client.asked)
    assert all(q["allowWatchBookmarks"] == "true" for what, q in client.asked if what == "watch")


def test_a_quiet_watch_after_failures_is_ready_once_it_holds_open() -> None:
    """A CRD installed after the service: failed lists, then a watch with nothing to say."""
    release = threading.Event()

    def listing_once_released() -> bytes:
        release.wait(10)
        return b'{"metadata": {"resourceVersion": "7"}, "items": []}'

    client = ScriptedClient([_fails(404)] * FAILING_AFTER + [listing_once_released])
    labels = NamespaceLabels(client, settings=FAST)  # type: ignore[arg-type]
    labels.start()
    try:
        assert _until(lambda: labels.failing)  # three failures in a row
        release.set()
        assert labels.synced.wait(10)
        assert _until(lambda: not labels.failing)  # open past QUICK_SECONDS, quiet
    finally:
        labels.stop()


def test_namespace_labels_follow_the_watch() -> None:
    ns = {"kind": "Namespace", "metadata": {"name": "shop", "labels": {"team": "a"}}}
    moved = {"kind": "Namespace", "metadata": {"name": "shop", "labels": {"team": "b"}}}
    client = ScriptedClient([
        _listing(ns, version="3"),
        lambda: [_line("MODIFIED", moved), _line("ADDED", {**ns, "metadata": {"name": "x"}})],
        lambda: [_line("DELETED", moved)],
    ])  # fmt: skip
    labels = NamespaceLabels(client, settings=FAST)  # type: ignore[arg-type]
    labels.start()
    assert _until(lambda: labels("x") == {} and labels("shop") is None)
    labels.stop()


def test_a_configmap_that_does_not_exist_is_an_empty_one() -> None:
    seen: list[ConfigMap] = []
    client = ScriptedClient([_listing(version="1")])
    watched = WatchedConfigMap(client, "silences", "ops", "s", seen.append, settings=FAST)  # type: ignore[arg-type]
    watched.start()
    assert watched.synced.wait(10)
    watched.stop()
    assert [cm.data for cm in seen] == [{}]


def _until(check: Callable[[], bool], timeout: float = 10) -> bool:
    done = threading.Event()
    while not check():
        if done.wait(0.02) or timeout <= 0:
            return False
        timeout -= 0.02
    return True
