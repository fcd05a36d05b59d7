"""Where each kind lives in the API, and the decoders for its list and watch bodies."""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from notifier.objects import Deployment, Kind, KubeObject, Pod, Service


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


@dataclass(frozen=True)
class Resource:
    kind: Kind
    group_path: str  # "/api/v1" or "/apis/apps/v1"
    plural: str
    list_decoder: msgspec.json.Decoder[ListBody]
    event_decoder: msgspec.json.Decoder[WatchEvent]

    def path(self, namespace: str | None) -> str:
        if namespace:
            return f"{self.group_path}/namespaces/{namespace}/{self.plural}"
        return f"{self.group_path}/{self.plural}"


class PodList(msgspec.Struct):
    metadata: ListMeta = ListMeta()
    items: list[Pod] = []


class DeploymentList(msgspec.Struct):
    metadata: ListMeta = ListMeta()
    items: list[Deployment] = []


class ServiceList(msgspec.Struct):
    metadata: ListMeta = ListMeta()
    items: list[Service] = []


class PodEvent(msgspec.Struct):
    type: str
    object: Pod


class DeploymentEvent(msgspec.Struct):
    type: str
    object: Deployment


class ServiceEvent(msgspec.Struct):
    type: str
    object: Service


ListBody = PodList | DeploymentList | ServiceList
WatchEvent = PodEvent | DeploymentEvent | ServiceEvent


def _resource(
    kind: Kind,
    group_path: str,
    plural: str,
    list_type: type[ListBody],
    event_type: type[WatchEvent],
) -> Resource:
    return Resource(
        kind, group_path, plural, msgspec.json.Decoder(list_type), msgspec.json.Decoder(event_type)
    )


RESOURCES: dict[Kind, Resource] = {
    Kind.POD: _resource(Kind.POD, "/api/v1", "pods", PodList, PodEvent),
    Kind.DEPLOYMENT: _resource(
        Kind.DEPLOYMENT, "/apis/apps/v1", "deployments", DeploymentList, DeploymentEvent
    ),
    Kind.SERVICE: _resource(Kind.SERVICE, "/api/v1", "services", ServiceList, ServiceEvent),
}

ERROR_DECODER = msgspec.json.Decoder(ErrorEvent)
BARE_DECODER = msgspec.json.Decoder(BareEvent)
STATUS_DECODER = msgspec.json.Decoder(Status)


class Bookmark(msgspec.Struct, frozen=True):
    resource_version: str


def decode_event(resource: Resource, line: bytes) -> WatchEvent | Bookmark | Status:
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


__all__ = ["RESOURCES", "Bookmark", "KubeObject", "Resource", "Status", "decode_event"]
