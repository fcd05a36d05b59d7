"""Namespace labels for rules' ``namespace_selector``, kept current by a watcher.

Started only when some rule uses a namespace selector, so the RBAC to read
namespaces is needed only then. Holds just name -> labels.
"""

from __future__ import annotations

from collections.abc import Mapping

from notifier.objects import KubeObject
from notifier.source.client import RawClient
from notifier.source.listwatch import Decoders, ListWatch
from notifier.source.reflector import ReflectorSettings
from notifier.source.watcher import DEFAULT_SETTINGS, OwnWatch, Watcher

PATH = "/api/v1/namespaces"


class Namespace(KubeObject, frozen=True, tag="Namespace"):
    """A namespace as the rules see it: its name and labels (in ``metadata``)."""


NAMESPACES: ListWatch[Namespace] = ListWatch("Namespace", PATH, Decoders.of(Namespace))


class NamespaceLabels(OwnWatch[Namespace]):
    """The reflector's store: name -> labels, swapped whole on a list."""

    def __init__(
        self, client: RawClient, *, settings: ReflectorSettings = DEFAULT_SETTINGS
    ) -> None:
        self._labels: dict[str, dict[str, str]] = {}
        self._watcher = Watcher(
            "namespaces", NAMESPACES, self, client, settings=settings, family="namespace-watch"
        )

    def __call__(self, namespace: str) -> Mapping[str, str] | None:
        """The labels of ``namespace``, or None when it is unknown (the rules' lookup)."""
        return self._labels.get(namespace)

    # -- what the reflector calls ----------------------------------------
    def replace(self, items: list[Namespace], *, first: bool) -> None:
        self._labels = {ns.metadata.name: ns.metadata.labels for ns in items}

    def upsert(self, obj: Namespace) -> None:
        self._labels[obj.metadata.name] = obj.metadata.labels

    def delete(self, obj: Namespace) -> None:
        self._labels.pop(obj.metadata.name, None)
