"""Where an owner named by an ``ownerReference`` is served, to follow the chain up.

The registry answers: a kind it knows (Deployments, Jobs, CronJobs...), or one
a kind says owns its objects (``KindSpec.owned_by``: a Pod's ReplicaSet or
ReplicationController, not watched here).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from notifier.kinds.registry import Kinds, owner_resource


def owner_path(kind: str, namespace: str, name: str, *, kinds: Kinds) -> str | None:
    """The owner's API path, or None for a kind we cannot place (``kinds``: the config's)."""
    api = owner_resource(kind, kinds=kinds)
    if api is None:
        return None
    return f"{api.path(namespace if api.namespaced else None)}/{name}"


Owner = tuple[str, str] | None  # (kind, name) of an owner's own controller, if any


class OwnerMemory:
    """Each owner's own owner, remembered for ``ttl`` seconds (``most`` of them).

    The Pods of one ReplicaSet tend to fail together: one GET of the
    ReplicaSet and one of its Deployment serve the whole wave.
    """

    def __init__(self, clock: Callable[[], float], ttl: float = 60.0, most: int = 512) -> None:
        self._clock, self._ttl, self._most = clock, ttl, most
        self._seen: OrderedDict[str, tuple[float, Owner]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, path: str) -> tuple[bool, Owner]:
        """(known?, its owner) for the object at ``path``."""
        with self._lock:
            found = self._seen.get(path)
            if found is None or self._clock() - found[0] > self._ttl:
                return False, None
            return True, found[1]

    def put(self, path: str, owner: Owner) -> None:
        with self._lock:
            self._seen[path] = (self._clock(), owner)
            self._seen.move_to_end(path)
            while len(self._seen) > self._most:
                self._seen.popitem(last=False)
