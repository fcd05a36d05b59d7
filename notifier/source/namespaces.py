"""Namespace labels for rules' ``namespace_selector``, kept current by a list + watch.

Started only when some rule uses a namespace selector, so the RBAC to read
namespaces is needed only then. Holds just name -> labels.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping

import msgspec

from notifier.source.client import ApiError, RawClient
from notifier.source.watching import WatchLoop

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


class NamespaceLabels(WatchLoop):
    def __init__(self, client: RawClient, *, inactivity_timeout: float = 90.0) -> None:
        super().__init__(client, "namespaces")
        self._labels: dict[str, dict[str, str]] = {}
        self._inactivity_timeout = inactivity_timeout
        self.synced = threading.Event()

    def __call__(self, namespace: str) -> Mapping[str, str] | None:
        """The labels of ``namespace``, or None when it is unknown (the rules' lookup)."""
        return self._labels.get(namespace)

    def read(self) -> str:
        body = _LIST.decode(self._client.get(PATH, {}))
        self._labels = {ns.metadata.name: ns.metadata.labels for ns in body.items}
        self.synced.set()
        return body.metadata.resource_version

    def follow(self, version: str) -> None:
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
