"""States: the levels an object is in, derived from one version of it.

Contract: ``states_of(obj)`` reads only ``obj``, never raises on odd objects
(missing status, unknown phases, empty containers) and returns only names
its kind lists (``KindSpec.states``). A state holds for as long as the
fields it is derived from say so; docs/transitions.md lists each one with
its field. The rules for each kind live with the kind, in ``notifier.kinds``.
"""

from __future__ import annotations

from notifier.kinds.registry import spec_of
from notifier.objects import KubeObject

NO_STATES: frozenset[str] = frozenset()


def states_of(obj: KubeObject) -> frozenset[str]:
    """The states ``obj`` is in now."""
    states: frozenset[str] = spec_of(obj).states_of(obj)
    return states
