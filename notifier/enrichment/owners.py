"""Where an owner named by an ``ownerReference`` is served, to follow the chain up.

Kinds the registry knows (Deployments, Jobs, CronJobs, custom resources
declared in ``watch.resources``...) answer from there; ReplicaSets and
ReplicationControllers, which own Pods but are not watched, from here.
"""

from __future__ import annotations

from notifier.kinds.registry import known, spec_for
from notifier.kinds.spec import ApiResource
from notifier.objects import Kind

_UNWATCHED_OWNERS = {
    "ReplicaSet": ApiResource("apps", "v1", "replicasets"),
    "ReplicationController": ApiResource("", "v1", "replicationcontrollers"),
}


def owner_path(kind: str, namespace: str, name: str) -> str | None:
    """The owner's API path, or None for a kind we cannot place."""
    api = _UNWATCHED_OWNERS.get(kind)
    if api is None and known(kind):
        api = spec_for(Kind(kind)).api
    if api is None:
        return None
    return f"{api.path(namespace if api.namespaced else None)}/{name}"
