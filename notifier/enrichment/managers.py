"""Who wrote what, and when, from ``metadata.managedFields``.

An ``Update`` moves to its manager only the fields whose values it changed
(or added); an ``Apply`` owns every field of its applied configuration. So
the ``data`` keys a manager owns after an ``Update`` are the keys it
changed or added, and its entry's ``time`` is its last write. A removed key
leaves no trace, and no earlier value is kept: what is knowable is said, no
more (docs/enrichment.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from notifier.enrichment.manifests import ManagedEntry, Meta
from notifier.enrichment.templates import shown

_MOST_KEYS = 20
# A manager's name, as the tools that people meet set it: kubectl-edit, kubectl-client-side-apply...
_KNOWN = (
    ("kubectl", "kubectl"),
    ("helm", "Helm"),
    ("argocd", "Argo CD"),
    ("kube-controller-manager", "a controller (kube-controller-manager)"),
    ("flux", "Flux"),
    ("kustomize-controller", "Flux"),
)


def seconds_of(stamp: str) -> float | None:
    """An RFC 3339 time as Unix seconds; None when absent or unreadable."""
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def manager_name(manager: str) -> str:
    lowered = manager.lower()
    for prefix, name in _KNOWN:
        if lowered.startswith(prefix):
            return name if name != "kubectl" else f"kubectl ({shown(manager)})"
    return shown(manager) or "unknown"


def writes(meta: Meta) -> Iterator[ManagedEntry]:
    """The object's own writes (not its status), newest first."""
    entries = [e for e in meta.managed_fields if not e.subresource]
    yield from sorted(entries, key=lambda e: e.time, reverse=True)


def creator(meta: Meta) -> ManagedEntry | None:
    """The write that created the object: the first entry from the second it was created.

    Times are whole seconds and the API server sorts entries by operation,
    time, then manager name: when an edit shares the creation's second,
    which write was the creation is not knowable, and the first is taken.
    """
    return next(
        (e for e in meta.managed_fields
         if not e.subresource and e.time == meta.creation_timestamp),
        None,
    )  # fmt: skip


def template_writer(meta: Meta) -> ManagedEntry | None:
    """The newest write that owns part of ``spec.template``: who rolled it out."""
    for entry in writes(meta):
        spec = entry.fields_v1.get("f:spec")
        if isinstance(spec, dict) and "f:template" in spec:
            return entry
    return None


def data_keys(entry: ManagedEntry) -> tuple[str, ...]:
    """The ``data`` and ``binaryData`` keys an entry owns: names only, sorted, bounded."""
    keys: list[str] = []
    for field in ("f:data", "f:binaryData"):
        owned: Any = entry.fields_v1.get(field)
        if isinstance(owned, dict):
            keys += [shown(k[2:]) for k in owned if isinstance(k, str) and k.startswith("f:")]
    keys.sort()
    return tuple(keys[:_MOST_KEYS])
