"""Owners: which controller an object belongs to, read from the object alone.

Contract: ``owner_of(obj)`` returns ``(kind, name)`` of the controller named
by the ``controller: true`` owner reference, or None. It makes no API call.
A Pod owned by a ReplicaSet is reported as owned by that ReplicaSet's
Deployment when the names show it: the deployment controller names its
ReplicaSets ``<deployment>-<pod-template-hash>`` and stamps the same hash on
the pods as the ``pod-template-hash`` label. A ReplicaSet whose name does
not end in the pod's hash (one created by hand) stays ("ReplicaSet", name).
"""

from __future__ import annotations

from notifier.kinds.registry import spec_of
from notifier.objects import KubeObject, controller_of

POD_TEMPLATE_HASH = "pod-template-hash"


def owner_of(obj: KubeObject) -> tuple[str, str] | None:
    """The controller of ``obj`` as (kind, name), a Deployment for its ReplicaSets' pods.

    A kind may say otherwise (an Event's owner is the object it is about).
    """
    own = spec_of(obj).owner
    if own is not None:
        found: tuple[str, str] | None = own(obj)
        return found
    ref = controller_of(obj)
    if ref is None:
        return None
    if ref.kind == "ReplicaSet":
        deployment = _deployment_of(ref.name, obj.metadata.labels.get(POD_TEMPLATE_HASH, ""))
        if deployment:
            return ("Deployment", deployment)
    return (ref.kind, ref.name)


def _deployment_of(replica_set: str, template_hash: str) -> str:
    """``web`` for ReplicaSet ``web-7d4b9c6f5d`` with hash ``7d4b9c6f5d``; "" if it does not fit."""
    suffix = f"-{template_hash}"
    if template_hash and replica_set.endswith(suffix):
        return replica_set[: -len(suffix)]
    return ""
