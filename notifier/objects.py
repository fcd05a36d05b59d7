"""What every trimmed Kubernetes object has: the base the kinds build on.

The watch stream is decoded by msgspec straight into Structs declared per
kind in ``notifier.kinds``. Fields not declared there (``managedFields``,
most of ``spec``) are skipped while decoding, so the cache holds only what
rules, messages and transitions read. Field names are the API's, in
snake_case (``restart_count`` for ``restartCount``), so templates read like
the Kubernetes docs.

Structs are frozen: a cached object is shared by the store, workers and
templates, and nobody may mutate what another thread is reading.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, ClassVar, NewType

import msgspec
from pydantic_core import core_schema


class EventType(StrEnum):
    """A watch event's type: the delta the source saw, and the transition told of it."""

    ADDED = "added"
    UPDATED = "updated"
    DELETED = "deleted"


ObjectKey = NewType("ObjectKey", str)
"""``namespace/name`` (``name`` when cluster-scoped), as client-go's MetaNamespaceKeyFunc."""


class Kind(str):
    """A kind's name, as the API's ``kind`` field spells it.

    The built-in kinds are the constants below, each with a module in
    ``notifier.kinds``; a custom resource's kind is whatever ``watch.resources``
    declares. In a config file a kind is checked for its form here and for
    being known (built in or declared) when the file is loaded.
    """

    __slots__ = ()

    POD: ClassVar[Kind]
    DEPLOYMENT: ClassVar[Kind]
    SERVICE: ClassVar[Kind]
    JOB: ClassVar[Kind]
    CRONJOB: ClassVar[Kind]
    STATEFULSET: ClassVar[Kind]
    DAEMONSET: ClassVar[Kind]
    NODE: ClassVar[Kind]
    PVC: ClassVar[Kind]
    HPA: ClassVar[Kind]
    EVENT: ClassVar[Kind]

    @property
    def value(self) -> str:
        return str.__str__(self)

    def __repr__(self) -> str:
        return f"Kind({str.__str__(self)!r})"

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        text = core_schema.str_schema(pattern=KIND_PATTERN, max_length=63)
        return core_schema.no_info_after_validator_function(cls, text)


KIND_PATTERN = r"^[A-Z][A-Za-z0-9]*$"  # as the API writes kinds: UpperCamelCase
Kind.POD = Kind("Pod")
Kind.DEPLOYMENT = Kind("Deployment")
Kind.SERVICE = Kind("Service")
Kind.JOB = Kind("Job")
Kind.CRONJOB = Kind("CronJob")
Kind.STATEFULSET = Kind("StatefulSet")
Kind.DAEMONSET = Kind("DaemonSet")
Kind.NODE = Kind("Node")
Kind.PVC = Kind("PersistentVolumeClaim")
Kind.HPA = Kind("HorizontalPodAutoscaler")
Kind.EVENT = Kind("Event")


class Wire(msgspec.Struct, frozen=True, rename="camel", omit_defaults=True, gc=False):
    """Base: camelCase on the wire, immutable, invisible to the cyclic GC (no cycles)."""


class OwnerReference(Wire, frozen=True):
    kind: str = ""
    name: str = ""
    uid: str = ""
    controller: bool = False


class ObjectMeta(Wire, frozen=True):
    name: str = ""
    namespace: str = ""
    uid: str = ""
    resource_version: str = ""
    generation: int = 0
    creation_timestamp: str | None = None
    deletion_timestamp: str | None = None
    labels: dict[str, str] = {}
    annotations: dict[str, str] = {}
    owner_references: tuple[OwnerReference, ...] = ()


class Condition(Wire, frozen=True):
    type: str = ""
    status: str = ""
    reason: str = ""
    message: str = ""


class KubeObject(Wire, frozen=True, tag_field="kind"):
    """Any watched object: its kind is the Struct's tag (the API's ``kind`` field)."""

    metadata: ObjectMeta = ObjectMeta()


def key_of(obj: KubeObject) -> ObjectKey:
    meta = obj.metadata
    return ObjectKey(f"{meta.namespace}/{meta.name}" if meta.namespace else meta.name)


def kind_of(obj: KubeObject) -> Kind:
    return Kind(str(type(obj).__struct_config__.tag))


def controller_of(obj: KubeObject) -> OwnerReference | None:
    """The owner reference marked ``controller: true``, if any."""
    return next((ref for ref in obj.metadata.owner_references if ref.controller), None)


def timestamp(value: str | None) -> float | None:
    """Seconds since the epoch of an RFC 3339 time as the API writes it; None if absent or odd."""
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()
