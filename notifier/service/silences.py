"""The silences ConfigMap, watched: every replica applies a change within a second or so.

Why a ConfigMap: every replica can watch it (no leader needed), it outlives
restarts, ``kubectl get configmap -o yaml`` shows it, RBAC can be narrowed
to its name, and nothing needs installing (a CRD would). The key
``silences.json`` holds the list ``kube-notifier silence`` writes. A change
that cannot be read keeps the silences in force and says why; a silence
that cannot be used is left out, named in the log.
"""

from __future__ import annotations

import hashlib
import logging
import time

import msgspec

from notifier.rules.silences import SILENCES_DECODER, SilenceBook
from notifier.source.client import ApiError, RawClient
from notifier.source.watching import WatchLoop

log = logging.getLogger("notifier.config")

SILENCES_KEY = "silences.json"
GONE = 410


class _Meta(msgspec.Struct, rename="camel"):
    resource_version: str = ""


class _ConfigMap(msgspec.Struct):
    metadata: _Meta = msgspec.field(default_factory=_Meta)
    data: dict[str, str] = {}


class _Event(msgspec.Struct):
    type: str
    object: _ConfigMap


class _List(msgspec.Struct):
    metadata: _Meta = msgspec.field(default_factory=_Meta)
    items: list[_ConfigMap] = []


_LIST = msgspec.json.Decoder(_List)
_EVENT = msgspec.json.Decoder(_Event)


class SilenceWatch(WatchLoop):
    def __init__(self, client: RawClient, book: SilenceBook, namespace: str, name: str) -> None:
        super().__init__(client, f"silences {namespace}/{name}")
        self._book = book
        self._name = name
        self._collection = f"/api/v1/namespaces/{namespace}/configmaps"
        self._applied = ""

    def read(self) -> str:
        """The ConfigMap as a list of at most one: none yet is no silences, and is watched for."""
        query = {"fieldSelector": f"metadata.name={self._name}"}
        found = _LIST.decode(self._client.get(self._collection, query))
        self.apply(found.items[0] if found.items else _ConfigMap())
        return found.metadata.resource_version

    def follow(self, version: str) -> None:
        query = {
            "watch": "true",
            "fieldSelector": f"metadata.name={self._name}",
            "resourceVersion": version,
            "timeoutSeconds": "300",
        }
        try:
            for line in self._client.stream_lines(self._collection, query, 90.0):
                event = _EVENT.decode(line)
                if event.type in ("ADDED", "MODIFIED"):
                    self.apply(event.object)
                elif event.type == "DELETED":
                    self.apply(_ConfigMap())
        except msgspec.ValidationError:
            return  # an ERROR event (410 and the like): read it afresh
        except ApiError as err:
            if err.status != GONE:
                raise

    def apply(self, config_map: _ConfigMap) -> None:
        text = config_map.data.get(SILENCES_KEY, "[]")
        digest = hashlib.sha256(text.encode()).hexdigest()
        if digest == self._applied:
            return
        try:
            silences = SILENCES_DECODER.decode(text)
        except msgspec.DecodeError as err:
            log.error("%s: %s is unreadable (%s); the silences in force stay", self.name,
                      SILENCES_KEY, err)  # fmt: skip
            return
        self._applied = digest
        for problem in self._book.replace(silences):
            log.error("%s: %s; left out", self.name, problem)
        now = time.time()
        active = sum(1 for silence in self._book.all() if silence.active(now))
        log.info("%s: %d silences, %d active", self.name, len(self._book.all()), active)
