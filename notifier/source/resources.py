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
STATUS_DECODER = msgspec.json.Decoder(Status)

__all__ = ["RESOURCES", "KubeObject", "Resource"]
