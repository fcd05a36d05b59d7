"""The difference between two revisions' pod templates, told without secrets.

Compared per container (by name; init containers too): the image, the
command and args (redacted as log lines are, then cut), the environment
(names and where a value comes from: a literal's value is never shown, only
that it changed), ``envFrom`` sources, resources and probes; then the
containers added or removed and the Pod's volumes (names and sources).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from notifier.enrichment.changes import TemplateChange
from notifier.enrichment.manifests import Container, EnvVar, PodSpec, Volume
from notifier.text import without_controls

MOST_CHANGES = 12  # differences told per rollout; the rest counted
_MOST_TEXT = 200  # characters of one side of a difference

Redact = Callable[[str], str]


def shown(text: str) -> str:
    """Object text made safe and cut to one bound."""
    text = without_controls(text)
    return text if len(text) <= _MOST_TEXT else text[: _MOST_TEXT - 1] + "…"


def template_changes(before: PodSpec, after: PodSpec, redact: Redact) -> list[TemplateChange]:
    found: list[TemplateChange] = []
    for label, old, new in (
        ("init container", before.init_containers, after.init_containers),
        ("container", before.containers, after.containers),
    ):
        found += _containers(label, old, new, redact)
    found += _volumes(before.volumes, after.volumes)
    return found


def _containers(
    label: str, old: tuple[Container, ...], new: tuple[Container, ...], redact: Redact
) -> Iterator[TemplateChange]:
    was = {c.name: c for c in old}
    now = {c.name: c for c in new}
    for name in [n for n in was if n not in now]:
        yield TemplateChange(f"{label}s", "", shown(name), "(removed)")
    for name in [n for n in now if n not in was]:
        yield TemplateChange(f"{label}s", "", "(none)", shown(name))
    for name in [n for n in now if n in was]:
        yield from _container(was[name], now[name], redact)


def _container(old: Container, new: Container, redact: Redact) -> Iterator[TemplateChange]:
    name = shown(new.name)
    if old.image != new.image:
        yield TemplateChange("image", name, shown(old.image), shown(new.image))
    for field in ("command", "args"):
        before, after = getattr(old, field), getattr(new, field)
        if before != after:
            yield TemplateChange(field, name, _words(before, redact), _words(after, redact))
    yield from _env(name, old, new)
    if old.resources != new.resources:
        yield TemplateChange("resources", name, _resources(old), _resources(new))
    for probe in ("liveness_probe", "readiness_probe", "startup_probe"):
        before, after = getattr(old, probe), getattr(new, probe)
        if before != after:
            label = probe.replace("_", " ")
            yield TemplateChange(label, name, _compact(before), _compact(after))


def _env(name: str, old: Container, new: Container) -> Iterator[TemplateChange]:
    was = {v.name: v for v in old.env}
    now = {v.name: v for v in new.env}
    told = []
    for var in sorted(was.keys() | now.keys()):
        before, after = was.get(var), now.get(var)
        if before != after:
            was_said, now_said = _source(before), _source(after)
            told.append(
                f"{var}: {was_said} changed" if was_said == now_said else
                f"{var}: {was_said} -> {now_said}"
            )  # fmt: skip
    if told:
        yield TemplateChange("env", name, "", shown("; ".join(told)))
    before_from = ", ".join(_env_from(old))
    after_from = ", ".join(_env_from(new))
    if before_from != after_from:
        yield TemplateChange("envFrom", name, shown(before_from), shown(after_from))


def _source(var: EnvVar | None) -> str:
    """Where a variable's value comes from; a literal's value is never shown."""
    if var is None:
        return "(none)"
    source = var.value_from
    if source is None:
        return "literal value"
    if source.config_map_key_ref is not None:
        return f"ConfigMap {source.config_map_key_ref.name} key {source.config_map_key_ref.key}"
    if source.secret_key_ref is not None:
        return f"Secret {source.secret_key_ref.name} key {source.secret_key_ref.key}"
    return "a field of the Pod" if source.field_ref is not None else "a resource of the Pod"


def _env_from(container: Container) -> Iterator[str]:
    for source in container.env_from:
        if source.config_map_ref is not None:
            yield f"ConfigMap {source.config_map_ref.name}"
        if source.secret_ref is not None:
            yield f"Secret {source.secret_ref.name}"


def _volumes(old: tuple[Volume, ...], new: tuple[Volume, ...]) -> Iterator[TemplateChange]:
    before = ", ".join(_volume(v) for v in old)
    after = ", ".join(_volume(v) for v in new)
    if before != after:
        yield TemplateChange("volumes", "", shown(before), shown(after))


def _volume(volume: Volume) -> str:
    if volume.config_map is not None:
        return f"{volume.name} (ConfigMap {volume.config_map.name})"
    if volume.secret is not None:
        return f"{volume.name} (Secret {volume.secret.secret_name})"
    if volume.projected is not None:
        names = [f"ConfigMap {p.config_map.name}" for p in volume.projected.sources if p.config_map]
        names += [f"Secret {p.secret.name}" for p in volume.projected.sources if p.secret]
        return f"{volume.name} (projected: {', '.join(names)})"
    if volume.persistent_volume_claim is not None:
        claim = volume.persistent_volume_claim.get("claimName", "")
        return f"{volume.name} (PersistentVolumeClaim {claim})"
    return volume.name


def _words(words: tuple[str, ...], redact: Redact) -> str:
    return shown(redact(" ".join(words))) if words else "(none)"


def _resources(container: Container) -> str:
    parts = []
    for which in ("requests", "limits"):
        amounts = container.resources.get(which) or {}
        if isinstance(amounts, dict) and amounts:
            parts.append(f"{which} " + " ".join(f"{k}={v}" for k, v in sorted(amounts.items())))
    return shown(", ".join(parts) or "(none)")


def _compact(value: dict[str, Any] | None) -> str:
    if value is None:
        return "(none)"
    return shown(json.dumps(value, sort_keys=True, separators=(",", ":")))
