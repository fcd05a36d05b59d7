"""Namespace labels for rules' ``namespace_selector``, kept current by a list + watch.

Started only when some rule uses a namespace selector, so the RBAC to read
namespaces is needed only then. Holds just name -> labels.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping

import msgspec

from notifier.source.backoff import Backoff
from notifier.source.client import ApiError, RawClient

log = logging.getLogger("notifier.source")

PATH = "/api/v1/namespaces"
GONE = 410


class _Meta(msgspec.Struct, rename="camel"):
    name: str = ""
    resource_version: str = ""
    labels: dict[str, str] = {}


class _Namespace(msgspec.Struct):
    metadata: _Meta = msgspec.field(default_factory=_Meta)


class _ListMeta(msgspec.Struct, rename="camel"):
    resource_version: str = ""


class _List(msgspec.Struct):
    metadata: _ListMeta = msgspec.field(default_factory=_ListMeta)
    items: list[_Namespace] = []


class _Event(msgspec.Struct):
    type: str
    object: _Namespace


_LIST = msgspec.json.Decoder(_List)
_EVENT = msgspec.json.Decoder(_Event)


class NamespaceLabels:
    def __init__(self, client: RawClient, *, inactivity_timeout: float = 90.0) -> None:
        self._client = client
        self._labels: dict[str, dict[str, str]] = {}
        self._inactivity_timeout = inactivity_timeout
        self._stop = threading.Event()
        self.synced = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="namespaces", daemon=True)

    def __call__(self, namespace: str) -> Mapping[str, str] | None:
        """The labels of ``namespace``, or None when it is unknown (the rules' lookup)."""
        return self._labels.get(namespace)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._client.close_streams()
        self._thread.join(2)

    def _loop(self) -> None:
        backoff = Backoff(clock=time.monotonic)
        while not self._stop.is_set():
            try:
                self._watch(self._list())
            except Exception as err:
                if self._stop.is_set():
                    return
                log.warning("namespaces: %s", err)
                self._stop.wait(backoff.next_delay())

    def _list(self) -> str:
        body = _LIST.decode(self._client.get(PATH, {}))
        self._labels = {ns.metadata.name: ns.metadata.labels for ns in body.items}
        self.synced.set()
        return body.metadata.resource_version

    def _watch(self, version: str) -> None:
        query = {"watch": "true", "resourceVersion": version, "allowWatchBookmarks": "true"}
        try:
            for line in self._client.stream_lines(PATH, query, self._inactivity_timeout):
                self._apply(_EVENT.decode(line))
        except msgspec.ValidationError:
            return  # an ERROR event (410 Gone and the like): list afresh
        except ApiError as err:
            if err.status != GONE:
                raise

    def _apply(self, event: _Event) -> None:
        meta = event.object.metadata
        if event.type == "DELETED":
            self._labels.pop(meta.name, None)
        elif event.type in ("ADDED", "MODIFIED"):
            self._labels[meta.name] = meta.labels
