"""An accepted reload's watch changes, applied live: kinds, custom resources and namespaces.

Prepared before the swap: which kinds stop, which start, and which start
afresh (a custom resource declared differently, or every namespaced kind
when ``watch.namespaces`` changed), and an access check of what will be
listed: a refusal rejects the reload naming what to grant, and every
informer keeps running as it was. Applied just before the new rules: what
goes is stopped and forgotten (its objects are not told as deleted, and
its saved records and baseline go); what comes is started with the
candidate's kinds, its first list quiet as at a first start, and its
baseline marked once the workers have acted on it. Kinds the reload does
not touch keep their informers: they lose and repeat nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from notifier.config.errors import ConfigError, ConfigIssue
from notifier.config.loading import LoadedConfig
from notifier.config.model import WatchConfig
from notifier.kinds.registry import Kinds
from notifier.objects import Kind
from notifier.reload.holder import Staged
from notifier.source.access import KubeAccessError, check_access
from notifier.source.client import RawClient
from notifier.source.informer import Informer
from notifier.source.informer_set import InformerSet
from notifier.workers.known import Known

log = logging.getLogger("notifier.service")

MakeInformer = Callable[[Kind, Kinds, Sequence[str]], Informer]


@dataclass(frozen=True)
class WatchPlan:
    stop: tuple[Kind, ...]
    start: tuple[Kind, ...]

    def __bool__(self) -> bool:
        return bool(self.stop or self.start)


def plan(previous: WatchConfig, candidate: WatchConfig, kinds: Kinds) -> WatchPlan:
    """What changes in the informers when ``candidate`` replaces ``previous``."""
    old, new = previous.watched(), candidate.watched()
    declared_old = {resource.kind: resource for resource in previous.resources}
    declared_new = {resource.kind: resource for resource in candidate.resources}
    moved = set(previous.namespaces) != set(candidate.namespaces)
    afresh = [
        kind
        for kind in new
        if kind in old
        and (
            declared_old.get(kind) != declared_new.get(kind)
            or (moved and kinds[kind].api.namespaced)
        )
    ]
    stop = [kind for kind in old if kind not in new] + afresh
    start = [kind for kind in new if kind not in old] + afresh
    return WatchPlan(tuple(stop), tuple(start))


class WatchChanges:
    def __init__(
        self,
        client: RawClient,
        informers: InformerSet,
        known: Known,
        make: MakeInformer,
        settle: Callable[[list[Informer]], object],
    ) -> None:
        self._client = client
        self._informers = informers
        self._known = known
        self._make = make
        self._settle = settle

    def stage(self, previous: LoadedConfig, candidate: LoadedConfig) -> Staged:
        """The reload stager: check what the candidate would list; apply it at the swap."""
        watch = candidate.config.watch
        changes = plan(previous.config.watch, watch, candidate.kinds)
        if not changes:
            return Staged(apply=_nothing)
        try:
            check_access(self._client, changes.start, watch.namespaces, known=candidate.kinds)
        except KubeAccessError as err:
            issue = ConfigIssue(candidate.source, None, None, "watch", str(err))
            raise ConfigError([issue]) from None
        return Staged(apply=lambda: self._apply(changes, candidate.kinds, watch.namespaces))

    def _apply(self, changes: WatchPlan, kinds: Kinds, namespaces: Sequence[str]) -> None:
        for kind in changes.stop:
            self._informers.remove(kind, self._forget)
        started = [self._make(kind, kinds, namespaces) for kind in changes.start]
        for informer in started:
            self._informers.add(informer)
        if changes.stop:
            log.info("watch: stopped %s", ", ".join(map(str, changes.stop)))
        if started:
            log.info("watch: started %s (their first list is quiet)", ", ".join(changes.start))
            self._settle(started)

    def _forget(self, informer: Informer) -> None:
        for namespace in informer.namespaces:
            self._known.forget_scope(informer.kind, namespace)


def _nothing() -> None:
    return None
