"""Owners: which controller an object belongs to, read from the object alone.

Contract: ``owner_of(obj)`` returns ``(kind, name)`` of the controller named
by the ``controller: true`` owner reference, or None. It makes no API call.
A kind may say otherwise (``KindSpec.owner``): a Pod of a ReplicaSet is
reported as owned by that ReplicaSet's Deployment, an Event's owner is the
object it is about.
"""

from __future__ import annotations

from notifier.kinds.registry import spec_of
from notifier.objects import KubeObject, controller_of


def owner_of(obj: KubeObject) -> tuple[str, str] | None:
    """The controller of ``obj`` as (kind, name), as its kind reads it."""
    own = spec_of(obj).owner
    if own is not None:
        found: tuple[str, str] | None = own(obj)
        return found
    ref = controller_of(obj)
    return None if ref is None else (ref.kind, ref.name)
