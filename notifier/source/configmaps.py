"""One ConfigMap watched by name: what the rules and silences ConfigMaps run on.

It is listed as a list of at most one (``fieldSelector metadata.name=``,
which RBAC limited to the name allows): a ConfigMap that does not exist yet
is an empty one, and its creation arrives on the watch; so does its
deletion, as an empty one again. The owner says what to do with each
version (``apply``), on the watcher's thread.
"""

from __future__ import annotations

from collections.abc import Callable

from notifier.objects import KubeObject, ObjectMeta
from notifier.source.client import RawClient
from notifier.source.listwatch import Decoders, ListWatch
from notifier.source.reflector import ReflectorSettings
from notifier.source.watcher import DEFAULT_SETTINGS, OwnWatch, Watcher


class ConfigMap(KubeObject, frozen=True, tag="ConfigMap"):
    data: dict[str, str] = {}


EMPTY = ConfigMap(metadata=ObjectMeta())
_DECODERS = Decoders.of(ConfigMap)


def config_map_by_name(label: str, namespace: str, name: str) -> ListWatch[ConfigMap]:
    return ListWatch(
        f"ConfigMap/{label}",
        f"/api/v1/namespaces/{namespace}/configmaps",
        _DECODERS,
        {"fieldSelector": f"metadata.name={name}"},
    )


class WatchedConfigMap(OwnWatch[ConfigMap]):
    """The reflector's store for one ConfigMap: each version goes to ``apply``."""

    def __init__(
        self,
        client: RawClient,
        label: str,
        namespace: str,
        name: str,
        apply: Callable[[ConfigMap], object],
        *,
        settings: ReflectorSettings = DEFAULT_SETTINGS,
    ) -> None:
        self.name = f"{label} {namespace}/{name}"
        self._apply = apply
        list_watch = config_map_by_name(label, namespace, name)
        self._watcher = Watcher(
            self.name, list_watch, self, client, settings=settings, family="configmap-watch"
        )

    # -- what the reflector calls ----------------------------------------
    def replace(self, items: list[ConfigMap], *, first: bool) -> None:
        self._apply(items[0] if items else EMPTY)

    def upsert(self, obj: ConfigMap) -> None:
        self._apply(obj)

    def delete(self, obj: ConfigMap) -> None:
        self._apply(EMPTY)
