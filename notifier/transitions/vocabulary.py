"""The names of states and signals, per kind: the words rules may use in ``from`` / ``to``.

Rules are validated against these sets at load, so a typo such as
``CrashLoopBackoff`` fails before anything runs. Each kind lists its own
(``notifier.kinds``, or a custom resource's ``states``); this module only
asks the registry, at the time of asking, so kinds declared in the config
count too.
"""

from __future__ import annotations

from notifier.kinds.registry import KINDS
from notifier.objects import Kind


def states_for(kind: Kind) -> frozenset[str]:
    return frozenset(KINDS[kind].states)


def signals_for(kind: Kind) -> frozenset[str]:
    return frozenset(KINDS[kind].all_signals)


def names_for(kind: Kind) -> frozenset[str]:
    """Every word a rule may use in ``from`` / ``to`` for ``kind``."""
    return KINDS[kind].names


def all_kinds() -> frozenset[Kind]:
    """Every kind known now: built in, or declared in ``watch.resources``."""
    return frozenset(KINDS)
