"""What changed before the trouble (``enrich: [changes]``): plain, bounded values.

Every string here came from an object and was made safe when read (control
characters out, cut to a bound); receivers escape it for their own markup.
No value of a ConfigMap, a Secret or a literal environment variable is ever
held: only names, times and managers.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TemplateChange:
    """One difference between two revisions' pod templates."""

    field: str  # "image", "env", "args", "command", "resources", "probes", "volumes", ...
    container: str  # the container it is in ("" for the Pod's volumes)
    before: str
    after: str


@dataclass(frozen=True, slots=True)
class Rollout:
    """The owner's latest rollout that began within the window."""

    owner: str  # "Deployment/web"
    revision: int
    at: str  # RFC 3339
    seconds_before: int  # before the trouble was looked at
    manager: str  # "kubectl", "Helm", "Argo CD", "a controller (name)", or the manager's name
    changes: tuple[TemplateChange, ...] = ()
    more: int = 0  # differences left out by the bound


@dataclass(frozen=True, slots=True)
class ConfigChange:
    """A ConfigMap (or a Secret, from its metadata only) the Pod reads, written in the window."""

    kind: str  # "ConfigMap" or "Secret"
    name: str
    at: str
    seconds_before: int
    manager: str
    keys: tuple[str, ...]  # keys that manager changed or added (names only; see docs)
    created: bool = False  # the write was the object's creation
    read_by: tuple[str, ...] = ()  # the containers that read it


@dataclass(frozen=True, slots=True)
class NodeState:
    name: str
    pressure: tuple[str, ...] = ()  # "MemoryPressure", "DiskPressure", "PIDPressure", "NotReady"
    taints: tuple[str, ...] = ()  # "key:effect"
    evictions: int = 0  # Pods evicted from it in this namespace within the window


@dataclass(frozen=True, slots=True)
class BlastRadius:
    owner: str  # "Deployment/web"
    state: str  # "CrashLoopBackOff"
    others: int  # other Pods of the owner in that state now
    pods: int  # Pods of the owner counted


@dataclass(frozen=True, slots=True)
class Changes:
    likely_cause: str
    window_seconds: int
    rollout: Rollout | None = None
    configs: tuple[ConfigChange, ...] = ()
    node: NodeState | None = None
    blast_radius: BlastRadius | None = None
    notes: tuple[str, ...] = ()  # what could not be looked at, and why
    requests: int = 0  # API requests made for them (shared answers not counted)
