"""ConfigMaps and Secrets a Pod reads, and which of them were written within the window.

Both are read as ``PartialObjectMetadata`` (the ``Accept`` header asks the
API server for metadata only), so no value of either ever leaves the API
server: the keys come from ``managedFields`` (``managers.data_keys``). A
Secret is looked at only with ``enrichment.changes.secrets`` on. Creating one
before the Pod existed (or in the same second) changed nothing for it: such
a creation is not told. An object whose ``managedFields`` are empty tells nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

from notifier.enrichment.changes import ConfigChange
from notifier.enrichment.failures import FetchError
from notifier.enrichment.managers import creator, data_keys, manager_name, writes
from notifier.enrichment.manifests import Container, ObjectMetadata, PodSpec
from notifier.enrichment.reads import METADATA_ONLY, Reads
from notifier.enrichment.rollouts import Window
from notifier.enrichment.templates import shown

MOST_READ = 5  # ConfigMaps looked at per notification, and as many Secrets
_PATHS = {"ConfigMap": "configmaps", "Secret": "secrets"}

Source = tuple[str, str]  # ("ConfigMap" | "Secret", name)


def sources_read(spec: PodSpec) -> dict[Source, list[str]]:
    """Each ConfigMap and Secret the Pod reads, with the containers reading it."""
    found: dict[Source, list[str]] = {}
    for container in (*spec.init_containers, *spec.containers):
        for source in _container_sources(container):
            found.setdefault(source, []).append(container.name)
    every = [c.name for c in spec.containers]
    for volume in spec.volumes:
        for source in _volume_sources(volume.config_map, volume.secret, volume.projected):
            found.setdefault(source, []).extend(n for n in every if n not in found[source])
    return found


def _container_sources(container: Container) -> Iterator[Source]:
    for var in container.env:
        ref = var.value_from
        if ref is not None and ref.config_map_key_ref is not None:
            yield "ConfigMap", ref.config_map_key_ref.name
        if ref is not None and ref.secret_key_ref is not None:
            yield "Secret", ref.secret_key_ref.name
    for source in container.env_from:
        if source.config_map_ref is not None:
            yield "ConfigMap", source.config_map_ref.name
        if source.secret_ref is not None:
            yield "Secret", source.secret_ref.name


def _volume_sources(config_map: object, secret: object, projected: object) -> Iterator[Source]:
    name = getattr(config_map, "name", "")
    if name:
        yield "ConfigMap", name
    name = getattr(secret, "secret_name", "")
    if name:
        yield "Secret", name
    for part in getattr(projected, "sources", ()):
        if part.config_map is not None:
            yield "ConfigMap", part.config_map.name
        if part.secret is not None:
            yield "Secret", part.secret.name


def config_changes(
    reads: Reads,
    ns: str,
    read: dict[Source, list[str]],
    window: Window,
    notes: list[str],
    *,
    since: str = "",
) -> list[ConfigChange]:
    """The writes within the window to what the Pod reads, newest first.

    ``since``: when the Pod was created; a creation before it is left out.
    """
    found: list[ConfigChange] = []
    for kind in ("ConfigMap", "Secret"):
        names = sorted(name for k, name in read if k == kind)
        if len(names) > MOST_READ:
            notes.append(f"{len(names) - MOST_READ} more {kind}s read by the Pod not looked at")
        for name in names[:MOST_READ]:
            try:
                changes = _changes(reads, ns, kind, name, readers=read[kind, name], window=window)
                found += [c for c in changes if not (c.created and since and c.at <= since)]
            except FetchError as problem:
                notes.append(f"{kind} {shown(name)}: {problem}")
    return sorted(found, key=lambda change: change.seconds_before)


def _changes(
    reads: Reads, ns: str, kind: str, name: str, *, readers: list[str], window: Window
) -> Iterator[ConfigChange]:
    path = f"/api/v1/namespaces/{ns}/{_PATHS[kind]}/{name}"
    meta = reads.read(path, {}, ObjectMetadata, accept=METADATA_ONLY).metadata
    creation = creator(meta)
    for entry in writes(meta):
        ago = window.ago(entry.time)
        if ago is None:
            continue
        yield ConfigChange(
            kind=kind,
            name=shown(name),
            at=shown(entry.time),
            seconds_before=ago,
            manager=manager_name(entry.manager),
            keys=data_keys(entry),
            created=entry is creation,
            read_by=tuple(shown(reader) for reader in dict.fromkeys(readers)),
        )
