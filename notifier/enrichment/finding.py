"""``ChangeFinder``: what changed before one object's trouble (``enrich: [changes]``).

For a Pod: the Pod itself (read fresh), its owner's latest rollout
(``rollouts``), the ConfigMaps (and, when allowed, Secrets) it reads written
within the window (``configs``), its Node (``surroundings``), and how many
Pods of its owner are in the same trouble. For a Deployment, StatefulSet,
DaemonSet or Job: its rollout and the ConfigMaps its template reads. Each
step that cannot be had is a note; the likely cause is ranked from the rest
(``ranking``). Every read goes through ``Reads``: capped per notification,
shared by a wave for a few seconds.
"""

from __future__ import annotations

from collections.abc import Callable

from notifier.enrichment.changes import BlastRadius, Changes, NodeState
from notifier.enrichment.config import ChangesConfig
from notifier.enrichment.configs import Source, config_changes, sources_read
from notifier.enrichment.failures import FetchError
from notifier.enrichment.manifests import Pod
from notifier.enrichment.ranking import likely_cause
from notifier.enrichment.reads import Getter, ReadMemory, Reads
from notifier.enrichment.rollouts import ROLLED_OUT, Lineage, Window, lineage, workload_of
from notifier.enrichment.surroundings import Trouble, blast_radius, node_state, trouble_of
from notifier.enrichment.templates import Redact, shown
from notifier.notifications import ContextRequest


class ChangeFinder:
    def __init__(
        self, settings: ChangesConfig, redact: Redact, *, clock: Callable[[], float]
    ) -> None:
        """``clock``: wall time (Unix seconds), which the window is measured back from."""
        self._settings, self._redact, self._wall = settings, redact, clock
        self._memory = ReadMemory(clock)

    def find(self, request: ContextRequest, get: Getter) -> Changes:
        settings = self._settings
        window = Window(self._wall(), settings.window)
        reads = Reads(get, self._memory, settings.requests)
        ns, notes = request.namespace, list[str]()
        pod = None
        if request.kind == "Pod":
            path = f"/api/v1/namespaces/{ns}/pods/{request.name}"
            pod = reads.read(path, {}, Pod, shared=False)
        owner = _owner(request, pod)
        found = self._lineage(reads, ns, owner, window, notes)
        spec = pod.spec if pod is not None else found.template if found else None
        read = self._readable(sources_read(spec) if spec else {}, notes)
        born = pod.metadata.creation_timestamp if pod is not None else ""
        configs = tuple(config_changes(reads, ns, read, window, notes, since=born))
        trouble = trouble_of(pod) if pod is not None else Trouble("")
        node = self._node(reads, ns, pod, window, notes)
        blast = self._blast(reads, ns, found, pod=pod, trouble=trouble, notes=notes)
        cause = likely_cause(
            window_seconds=settings.window,
            trouble=trouble,
            rollout=found.rollout if found else None,
            configs=configs,
            node=node,
        )
        return Changes(
            likely_cause=cause,
            window_seconds=int(settings.window),
            rollout=found.rollout if found else None,
            configs=configs,
            node=node,
            blast_radius=blast,
            notes=tuple(notes),
            requests=reads.made,
        )

    def _lineage(
        self, reads: Reads, ns: str, owner: tuple[str, str] | None, window: Window, notes: list[str]
    ) -> Lineage | None:
        if owner is None:
            return None
        try:
            kind, name = workload_of(reads, ns, *owner)
            if kind not in ROLLED_OUT:
                notes.append(f"rollouts of {shown(kind)}/{shown(name)} are not read")
                return None
            return lineage(reads, ns, kind, name, window=window, redact=self._redact)
        except FetchError as problem:
            notes.append(f"rollout: {problem}")
            return None

    def _readable(self, read: dict[Source, list[str]], notes: list[str]) -> dict[Source, list[str]]:
        secrets = sorted(name for kind, name in read if kind == "Secret")
        if not secrets or self._settings.secrets:
            return read
        names = ", ".join(shown(name) for name in secrets[:5])
        notes.append(f"Secrets read ({names}) not looked at: enrichment.changes.secrets is off")
        return {source: who for source, who in read.items() if source[0] != "Secret"}

    def _node(
        self, reads: Reads, ns: str, pod: Pod | None, window: Window, notes: list[str]
    ) -> NodeState | None:
        if pod is None or not pod.spec.node_name:
            return None
        try:
            return node_state(reads, ns, pod.spec.node_name, window)
        except FetchError as problem:
            notes.append(f"node: {problem}")
            return None

    def _blast(
        self,
        reads: Reads,
        ns: str,
        found: Lineage | None,
        *,
        pod: Pod | None,
        trouble: Trouble,
        notes: list[str],
    ) -> BlastRadius | None:
        if pod is None or found is None or not found.selector or not trouble.reason:
            return None
        try:
            return blast_radius(reads, ns, found.owner, found.selector, pod=pod, trouble=trouble)
        except FetchError as problem:
            notes.append(f"blast radius: {problem}")
            return None


def _owner(request: ContextRequest, pod: Pod | None) -> tuple[str, str] | None:
    if pod is None:
        return (request.kind, request.name) if request.kind in ROLLED_OUT else None
    ref = pod.metadata.controller()
    return (ref.kind, ref.name) if ref is not None else None
