"""The names of states and signals, per kind: the words rules may use in ``from`` / ``to``.

Rules are validated against these sets at load, so a typo such as
``CrashLoopBackoff`` fails before anything runs. Each kind lists its own
(``notifier.kinds``, or a custom resource's ``states``); this module asks
the kinds it is given (a config's, with its custom resources), or the
built-in ones.
"""

from __future__ import annotations

from notifier.kinds.registry import Kinds
from notifier.objects import Kind


def states_for(kind: Kind, *, kinds: Kinds) -> frozenset[str]:
    return kinds.states_for(kind)


def signals_for(kind: Kind, *, kinds: Kinds) -> frozenset[str]:
    return kinds.signals_for(kind)


def names_for(kind: Kind, *, kinds: Kinds) -> frozenset[str]:
    """Every word a rule may use in ``from`` / ``to`` for ``kind``."""
    return kinds.names_for(kind)


def all_kinds(*, kinds: Kinds) -> frozenset[Kind]:
    """Every kind known: built in, or declared in the config's ``watch.resources``."""
    return kinds.all
