"""Transitions: what changed about one object, derived by pure functions."""

from notifier.transitions.changes import changes_between
from notifier.transitions.detecting import detect, detect_all, signals_between
from notifier.transitions.model import Change, EventType, Origin, Transition
from notifier.transitions.owners import owner_of
from notifier.transitions.states import states_of

__all__ = [
    "Change",
    "EventType",
    "Origin",
    "Transition",
    "changes_between",
    "detect",
    "detect_all",
    "owner_of",
    "signals_between",
    "states_of",
]
