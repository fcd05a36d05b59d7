"""Where each kind lives in the API, and the decoders for its list and watch bodies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import msgspec

from notifier.kinds.registry import KINDS
from notifier.kinds.spec import ApiResource, KindSpec
from notifier.objects import Kind, KubeObject

T = TypeVar("T")


class ListMeta(msgspec.Struct, frozen=True, rename="camel"):
    resource_version: str = ""
    continue_: str = msgspec.field(default="", name="continue")


class Status(msgspec.Struct):
    """A metav1.Status, as sent in an ERROR watch event or an error body."""

    code: int = 0
    reason: str = ""
    message: str = ""


class ErrorEvent(msgspec.Struct):
    type: str
    object: Status


class _VersionOnly(msgspec.Struct, rename="camel"):
    resource_version: str = ""


class _MetadataOnly(msgspec.Struct):
    metadata: _VersionOnly = msgspec.field(default_factory=_VersionOnly)


class BareEvent(msgspec.Struct):
    """Any watch event, read only for its type and resourceVersion.

    The fallback when the typed decode fails: a BOOKMARK's object is a stub
    (``"containers": null``) and an ERROR's object is a Status.
    """

    type: str
    object: _MetadataOnly = msgspec.field(default_factory=_MetadataOnly)


class ListBody(msgspec.Struct, Generic[T]):
    metadata: ListMeta = ListMeta()
    items: list[T] = []


class WatchEvent(msgspec.Struct, Generic[T]):
    type: str
    object: T


@dataclass(frozen=True)
class Resource:
    """A kind's place in the API, with the decoders for its list and watch bodies."""

    kind: Kind
    api: ApiResource
    list_decoder: msgspec.json.Decoder[ListBody[KubeObject]]
    event_decoder: msgspec.json.Decoder[WatchEvent[KubeObject]]

    @property
    def plural(self) -> str:
        return self.api.plural

    def path(self, namespace: str | None) -> str:
        return self.api.path(namespace)


def _resource(spec: KindSpec[Any]) -> Resource:
    return Resource(
        spec.kind,
        spec.api,
        msgspec.json.Decoder(ListBody[spec.struct]),  # type: ignore[name-defined]
        msgspec.json.Decoder(WatchEvent[spec.struct]),  # type: ignore[name-defined]
    )


_RESOURCES: dict[Kind, tuple[KindSpec[Any], Resource]] = {}


def resource_for(kind: Kind) -> Resource:
    """The kind's place in the API with its decoders (made once per spec of the kind)."""
    spec = KINDS[kind]
    made = _RESOURCES.get(kind)
    if made is None or made[0] is not spec:
        made = _RESOURCES[kind] = (spec, _resource(spec))
    return made[1]


ERROR_DECODER = msgspec.json.Decoder(ErrorEvent)
BARE_DECODER = msgspec.json.Decoder(BareEvent)
STATUS_DECODER = msgspec.json.Decoder(Status)


class Bookmark(msgspec.Struct, frozen=True):
    resource_version: str


def decode_event(resource: Resource, line: bytes) -> WatchEvent[KubeObject] | Bookmark | Status:
    """One watch line: an object event, a bookmark, or the Status of an ERROR event.

    The typed decode is the fast path. It fails on purpose for ERROR events
    (the object is a Status) and for bookmarks, whose stub object may carry
    nulls where lists belong (``"containers": null``).
    """
    try:
        event = resource.event_decoder.decode(line)
    except msgspec.ValidationError:
        bare = BARE_DECODER.decode(line)
        if bare.type == "BOOKMARK":
            return Bookmark(bare.object.metadata.resource_version)
        if bare.type != "ERROR":
            raise
        return ERROR_DECODER.decode(line).object
    if event.type == "BOOKMARK":
        return Bookmark(event.object.metadata.resource_version)
    return event


__all__ = ["Bookmark", "KubeObject", "Resource", "Status", "decode_event", "resource_for"]
