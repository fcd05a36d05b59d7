"""One ConfigMap watched by name: read it, then follow its changes, on the light watch loop.

The rules ConfigMap and the silences ConfigMap are both watched this way.
It is read as a list of at most one (``fieldSelector metadata.name=``, which
RBAC limited to the name allows): a ConfigMap that does not exist yet is
an empty one, and its creation arrives on the watch. Subclasses say what
to do with its data (``apply``).
"""

from __future__ import annotations

from abc import abstractmethod

import msgspec

from notifier.source.client import ApiError, RawClient
from notifier.source.watching import WatchLoop

GONE = 410


class ConfigMapMeta(msgspec.Struct, rename="camel"):
    uid: str = ""
    resource_version: str = ""


class ConfigMapBody(msgspec.Struct):
    metadata: ConfigMapMeta = msgspec.field(default_factory=ConfigMapMeta)
    data: dict[str, str] = {}


class _Event(msgspec.Struct):
    type: str
    object: ConfigMapBody


class _List(msgspec.Struct):
    metadata: ConfigMapMeta = msgspec.field(default_factory=ConfigMapMeta)
    items: list[ConfigMapBody] = []


_LIST = msgspec.json.Decoder(_List)
_EVENT = msgspec.json.Decoder(_Event)


class WatchedConfigMap(WatchLoop):
    def __init__(self, client: RawClient, label: str, namespace: str, name: str) -> None:
        super().__init__(client, f"{label} {namespace}/{name}")
        self.namespace = namespace
        self.config_map_name = name
        self._collection = f"/api/v1/namespaces/{namespace}/configmaps"

    @abstractmethod
    def apply(self, config_map: ConfigMapBody) -> object:
        """Use this version of the ConfigMap (an empty one when it does not exist)."""

    def read(self) -> str:
        query = {"fieldSelector": f"metadata.name={self.config_map_name}"}
        found = _LIST.decode(self._client.get(self._collection, query))
        self.apply(found.items[0] if found.items else ConfigMapBody())
        return found.metadata.resource_version

    def follow(self, version: str) -> None:
        query = {
            "watch": "true",
            "fieldSelector": f"metadata.name={self.config_map_name}",
            "resourceVersion": version,
            "timeoutSeconds": "300",
        }
        try:
            for line in self._client.stream_lines(self._collection, query, 90.0):
                event = _EVENT.decode(line)
                if event.type in ("ADDED", "MODIFIED"):
                    self.apply(event.object)
                elif event.type == "DELETED":
                    self.apply(ConfigMapBody())
        except msgspec.ValidationError:
            return  # an ERROR event (410 and the like): read it afresh
        except ApiError as err:
            if err.status != GONE:
                raise
