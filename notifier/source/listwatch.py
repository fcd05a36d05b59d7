"""What a reflector lists and watches: one collection, its selectors, its decoders; and
what it keeps in step with them (a ``ReflectorStore``).

client-go drives its one Reflector with a ListWatch; so do we. A kind's
informer, the rules and silences ConfigMaps (one object, by field selector)
and the namespaces' labels are each a ``ListWatch`` over the same reflector,
so every watch gets bookmarks, resume from its resourceVersion, the
inactivity watchdog, 410 and 429 handling and a readiness count.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

import msgspec

from notifier.objects import KubeObject

T = TypeVar("T", bound=KubeObject)


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


class Bookmark(msgspec.Struct, frozen=True):
    resource_version: str


ERROR_DECODER = msgspec.json.Decoder(ErrorEvent)
BARE_DECODER = msgspec.json.Decoder(BareEvent)
STATUS_DECODER = msgspec.json.Decoder(Status)


@dataclass(frozen=True)
class Decoders(Generic[T]):
    """The JSON decoders of one type's list pages and watch events."""

    list: msgspec.json.Decoder[ListBody[T]]
    event: msgspec.json.Decoder[WatchEvent[T]]

    @classmethod
    def of(cls, struct: type[T]) -> Decoders[T]:
        return cls(
            msgspec.json.Decoder(ListBody[struct]),  # type: ignore[valid-type]
            msgspec.json.Decoder(WatchEvent[struct]),  # type: ignore[valid-type]
        )

    def decode_event(self, line: bytes) -> WatchEvent[T] | Bookmark | Status:
        """One watch line: an object event, a bookmark, or the Status of an ERROR event.

        The typed decode is the fast path. It fails on purpose for ERROR events
        (the object is a Status) and for bookmarks, whose stub object may carry
        nulls where lists belong (``"containers": null``).
        """
        try:
            event = self.event.decode(line)
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


@dataclass(frozen=True)
class ListWatch(Generic[T]):
    """One collection to list and watch, as the reflector asks for it."""

    name: str  # in logs and the metrics' ``kind`` label: "Pod", "ConfigMap/silences"
    path: str  # the collection: /api/v1/namespaces/shop/pods
    decoders: Decoders[T]
    selectors: dict[str, str] = field(default_factory=dict)  # fieldSelector, labelSelector

    def query(self, **more: str) -> dict[str, str]:
        return {**self.selectors, **more}


class ReflectorStore(Protocol[T]):
    """What a reflector keeps in step with the server (client-go's Store, as a reflector sees it).

    Called from the reflector's thread only, in the order the server said things.
    """

    def admit(self, obj: T) -> T:
        """A listed object as it will be kept (called per item, page by page)."""
        ...

    def replace(self, items: list[T], *, first: bool) -> None:
        """A whole list: the first one, or a relist after 410."""
        ...

    def upsert(self, obj: T) -> None:
        """An ADDED or MODIFIED watch event."""
        ...

    def delete(self, obj: T) -> None:
        """A DELETED watch event."""
        ...
