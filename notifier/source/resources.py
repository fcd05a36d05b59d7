"""Where each kind lives in the API, and the decoders for its list and watch bodies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from notifier.kinds.registry import Kinds
from notifier.kinds.spec import ApiResource, KindSpec
from notifier.objects import Kind, KubeObject
from notifier.source.listwatch import Bookmark, Decoders, ListWatch, Status, WatchEvent


@dataclass(frozen=True)
class Resource:
    """A kind's place in the API, with the decoders for its list and watch bodies."""

    kind: Kind
    api: ApiResource
    decoders: Decoders[KubeObject]

    @property
    def plural(self) -> str:
        return self.api.plural

    def path(self, namespace: str | None) -> str:
        return self.api.path(namespace)

    def list_watch(self, namespace: str | None) -> ListWatch[KubeObject]:
        """The kind's objects in ``namespace`` (None: in every namespace)."""
        return ListWatch(self.kind.value, self.path(namespace), self.decoders)


def _resource(spec: KindSpec[Any]) -> Resource:
    return Resource(spec.kind, spec.api, Decoders.of(spec.struct))


_RESOURCES: dict[Kind, tuple[KindSpec[Any], Resource]] = {}


def resource_for(kind: Kind, *, kinds: Kinds) -> Resource:
    """The kind's place in the API with its decoders (made once per spec of the kind)."""
    spec = kinds[kind]
    made = _RESOURCES.get(kind)
    if made is None or made[0] is not spec:
        made = _RESOURCES[kind] = (spec, _resource(spec))
    return made[1]


def decode_event(resource: Resource, line: bytes) -> WatchEvent[KubeObject] | Bookmark | Status:
    """One watch line of the kind's: an object event, a bookmark, or an ERROR's Status."""
    return resource.decoders.decode_event(line)


__all__ = ["Bookmark", "KubeObject", "Resource", "Status", "decode_event", "resource_for"]
