"""Informers + queue + workers wired to a recording stage, against the real API server."""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import yaml

from notifier.kinds.registry import KINDS, Kinds
from notifier.objects import EventType, Kind, KubeObject, ObjectKey, key_of
from notifier.queue.rate_limiting_queue import RateLimitingQueue
from notifier.source.client import RawClient
from notifier.source.credentials import ClusterAccess, load_access
from notifier.source.informer import Informer
from notifier.source.reflector import ReflectorSettings
from notifier.source.resources import resource_for
from notifier.transitions.model import Transition
from notifier.workers.intake import Intake
from notifier.workers.keys import WorkKey
from notifier.workers.known import Known
from notifier.workers.worker import Workers
from tests.controlplane.cluster import ControlPlane


def cluster_access(
    plane: ControlPlane, port: int | None = None, server: str | None = None
) -> ClusterAccess:
    """The plane's admin credentials; ``port``: reach it through a proxy on that port.

    ``server``: reach it at that URL instead (a stand-in in front of it).
    """
    if port is not None:
        server = f"https://127.0.0.1:{port}"
    if server is None:
        return load_access(str(plane.kubeconfig))
    config = yaml.safe_load(plane.kubeconfig.read_text())
    config["clusters"][0]["cluster"]["server"] = server
    path = plane.run_dir / f"kubeconfig-via-{server.rsplit(':', 1)[-1]}"
    path.write_text(yaml.safe_dump(config))
    return load_access(str(path))


@dataclass
class RecordingStage:
    """Records transitions per key; can be slow or failing; checks one worker per key."""

    delay: float = 0.0
    gate: threading.Event | None = None  # when set, every pass waits for it (workers held)
    fail: Callable[[list[Transition]], bool] = lambda _: False
    by_key: dict[tuple[Kind, ObjectKey], list[Transition]] = field(
        default_factory=lambda: defaultdict(list)
    )
    log: list[Transition] = field(default_factory=list)  # every transition, in arrival order
    calls: int = 0
    overlaps: int = 0
    _busy: set[tuple[Kind, ObjectKey]] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def handle(self, transitions: list[Transition]) -> None:
        key = (transitions[0].kind, transitions[0].key)
        with self._lock:
            self.calls += 1
            if key in self._busy:
                self.overlaps += 1
            self._busy.add(key)
        try:
            if self.gate is not None:
                self.gate.wait(120)
            if self.delay:
                time.sleep(self.delay)
            if self.fail(transitions):
                raise RuntimeError("stage told to fail")
            with self._lock:
                self.by_key[key].extend(transitions)
                self.log.extend(transitions)
        finally:
            with self._lock:
                self._busy.discard(key)

    def all(self) -> list[Transition]:
        with self._lock:
            return list(self.log)

    def wait_seen(self, kind: Kind, key: ObjectKey, count: int = 1, timeout: float = 30) -> None:
        """Wait until ``count`` transitions of ``key`` were handled; the next change gets a pass.

        A worker coalesces changes that arrive before it takes the key, so a test that means
        to see a particular update (a scale, a port change) lets the add land first.
        """
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if len(self.by_key.get((kind, key), ())) >= count:
                    return
            time.sleep(0.02)
        raise AssertionError(f"fewer than {count} transitions of {kind} {key} in {timeout}s")


@dataclass
class Pipeline:
    informers: dict[Kind, Informer]
    queue: RateLimitingQueue[WorkKey]
    workers: Workers
    stage: RecordingStage
    raw: RawClient

    def wait_synced(self, timeout: float = 60) -> None:
        for informer in self.informers.values():
            assert informer.wait_synced(timeout), f"{informer.kind} did not sync"

    def wait_idle(self, timeout: float = 60, quiet: float = 1.0) -> None:
        """Wait until the queue is empty and nothing was processed for ``quiet`` seconds."""
        deadline = time.monotonic() + timeout
        last, since = -1, time.monotonic()
        while time.monotonic() < deadline:
            stats = self.queue.stats()
            busy = len(self.queue) or stats.unfinished_work_seconds > 0
            if self.workers.processed != last or busy:
                last, since = self.workers.processed, time.monotonic()
            elif time.monotonic() - since >= quiet:
                return
            time.sleep(0.05)
        raise AssertionError("pipeline did not settle")


@contextmanager
def pipeline(
    plane: ControlPlane,
    kinds: Sequence[Kind] = (Kind.POD,),
    *,
    namespaces: Sequence[str] = (),
    port: int | None = None,
    server: str | None = None,
    stage: RecordingStage | None = None,
    workers: int = 4,
    settings: ReflectorSettings | None = None,
    max_retries: int = 15,
    queue_name: str = "test",
    known_kinds: Kinds = KINDS,
) -> Iterator[Pipeline]:
    raw = RawClient(cluster_access(plane, port, server))
    queue: RateLimitingQueue[WorkKey] = RateLimitingQueue(queue_name, max_retries=max_retries)
    known = Known()
    intake = Intake(queue, known)
    stage = stage or RecordingStage()
    informers = {
        kind: Informer(
            kind,
            client=raw,
            handler=intake,
            namespaces=namespaces,
            settings=settings or ReflectorSettings(),
            kinds=known_kinds,
        )
        for kind in kinds
    }
    pool = Workers(
        queue=queue,
        intake=intake,
        stores={k: i.store for k, i in informers.items()},
        known=known,
        sink=stage,
        count=workers,
    )
    pool.start()
    for informer in informers.values():
        informer.start()
    try:
        yield Pipeline(informers, queue, pool, stage, raw)
    finally:
        raw.close_streams()
        for informer in informers.values():
            informer.stop()
        pool.stop(5)


def fresh_list(
    raw: RawClient, kind: Kind, namespace: str | None = None
) -> dict[ObjectKey, KubeObject]:
    resource = resource_for(kind, kinds=KINDS)
    body = resource.decoders.list.decode(raw.get(resource.path(namespace), {}))
    return {key_of(obj): obj for obj in body.items}


def _ident(obj: KubeObject | None) -> tuple[str, str] | None:
    return None if obj is None else (obj.metadata.uid, obj.metadata.resource_version)


def assert_cache_matches(
    pipe: Pipeline, kind: Kind, namespace: str | None = None, settle: float = 20.0
) -> None:
    """The cache equals a fresh list (keys, UIDs, resourceVersions), once things settle.

    Controllers may still be writing (with the full tier up, the deployment
    controller updates status): compare again after the pipeline goes idle,
    for up to ``settle`` seconds, and fail with the last difference.
    """
    deadline = time.monotonic() + settle
    while True:
        pipe.wait_idle()
        listed = {k: _ident(o) for k, o in fresh_list(pipe.raw, kind, namespace).items()}
        cached = {
            k: _ident(o)
            for k, o in pipe.informers[kind].store.snapshot().items()
            if namespace is None or o.metadata.namespace == namespace
        }
        if cached == listed or time.monotonic() > deadline:
            break
    assert cached == listed


def assert_true_history(pipe: Pipeline, kind: Kind, namespace: str) -> None:
    """Each key's transitions chain from one state to the next and end at the live state.

    A missed change leaves the chain short of the final state; a doubled one
    breaks the chain (its ``old`` is not the previous ``new``).
    """
    final = {k: _ident(o) for k, o in fresh_list(pipe.raw, kind, namespace).items()}
    keys = {k for (kd, k) in pipe.stage.by_key if kd == kind and k.startswith(namespace + "/")}
    for key in keys | set(final):
        chain = pipe.stage.by_key.get((kind, key), [])
        state: tuple[str, str] | None = None
        for index, t in enumerate(chain):
            if t.event is EventType.DELETED:
                # A delete carries the object at its deletion revision: same UID, newer version.
                assert state is not None and t.old is not None, f"{key}: delete of nothing: {chain}"
                assert t.old.metadata.uid == state[0], f"{key}: delete does not follow: {chain}"
                assert int(t.old.metadata.resource_version) >= int(state[1])
            elif index or t.event is not EventType.ADDED:
                assert _ident(t.old) == state, f"{key}: transition {index} does not follow: {chain}"
            assert _ident(t.old) != _ident(t.new), f"{key}: unchanged object reported"
            state = _ident(t.new)
        assert state == final.get(key), f"{key}: history ends at {state}, live is {final.get(key)}"
