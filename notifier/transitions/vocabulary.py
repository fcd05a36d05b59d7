"""The names of states and signals, per kind: the words rules may use in ``from`` / ``to``.

Rules are validated against these sets at load, so a typo such as
``CrashLoopBackoff`` fails before anything runs. Each kind lists its own
(``notifier.kinds``); this module only gathers them.
"""

from __future__ import annotations

from notifier.kinds.registry import KINDS
from notifier.objects import Kind

STATES: dict[Kind, frozenset[str]] = {kind: frozenset(spec.states) for kind, spec in KINDS.items()}
SIGNALS: dict[Kind, frozenset[str]] = {
    kind: frozenset(spec.all_signals) for kind, spec in KINDS.items()
}


def names_for(kind: Kind) -> frozenset[str]:
    """Every word a rule may use in ``from`` / ``to`` for ``kind``."""
    return KINDS[kind].names
