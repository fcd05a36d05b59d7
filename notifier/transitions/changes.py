"""Field-level differences between two versions of one object.

Contract: ``changes_between(old, new)`` returns one ``Change`` per field that
differs, in a stable order, never raising on odd objects. Both objects must
be of the same kind (``detecting.detect_all`` splits a kind or UID change
into a delete and an add before it gets here).

The metadata is compared here for every kind; the rest by the kind's own
``diff`` (``notifier.kinds``). docs/transitions.md lists every path and how
it is rendered.

What is deliberately not a change: ``metadata.resourceVersion`` (it changes
on every write), condition messages and timestamps, container state
messages (a CrashLoopBackOff's "back-off 20s" becoming "back-off 40s"), and
the ``kubectl.kubernetes.io/last-applied-configuration`` annotation (a copy
of the spec whose real changes are reported field by field).
"""

from __future__ import annotations

from notifier.kinds.diffing import Change, Diff
from notifier.kinds.registry import spec_of
from notifier.objects import KubeObject


def changes_between(old: KubeObject, new: KubeObject) -> tuple[Change, ...]:
    """What differs from ``old`` to ``new``, field by field."""
    if old == new:
        return ()
    if type(old) is not type(new):
        raise TypeError(f"cannot diff a {type(old).__name__} with a {type(new).__name__}")
    diff = Diff()
    if old.metadata != new.metadata:
        diff.metadata(old.metadata, new.metadata)
    spec_of(new).diff(diff, old, new)
    return tuple(diff.changes)
