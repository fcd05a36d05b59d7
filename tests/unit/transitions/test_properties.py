"""Properties over odd objects: nothing raises, only vocabulary names come out, and the
three functions agree with each other."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from notifier.kinds.registry import KINDS
from notifier.objects import EventType, KubeObject, kind_of
from notifier.origin import Origin
from notifier.transitions.changes import changes_between
from notifier.transitions.detecting import detect, detect_all, signals_between
from notifier.transitions.owners import owner_of
from notifier.transitions.states import states_of
from notifier.transitions.vocabulary import signals_for, states_for
from tests.unit.transitions.odd_objects import any_object, pairs

# Objects are deep: generation is slow by design, and a loaded CI machine must not flake.
FEW = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _detect(old: KubeObject | None, new: KubeObject | None) -> Any:
    return detect(old, new, origin=Origin.LIVE, observed_at=0.0, correlation_id="p")


@FEW
@given(any_object())
def test_states_are_vocabulary_words(obj: KubeObject) -> None:
    assert states_of(obj) <= states_for(kind_of(obj), kinds=KINDS)


@FEW
@given(any_object())
def test_an_object_does_not_change_against_itself(obj: KubeObject) -> None:
    assert changes_between(obj, obj) == ()
    assert _detect(obj, obj) is None


@FEW
@given(any_object())
def test_owner_is_read_without_raising(obj: KubeObject) -> None:
    owner = owner_of(obj)
    assert owner is None or all(isinstance(part, str) for part in owner)


@FEW
@given(pairs())
def test_changes_are_unique_real_and_symmetric(pair: tuple[KubeObject, KubeObject]) -> None:
    old, new = pair
    forward = changes_between(old, new)
    paths = [change.path for change in forward]
    assert len(paths) == len(set(paths))
    assert all(change.old != change.new for change in forward)
    backward = {(c.path, c.new, c.old) for c in changes_between(new, old)}
    assert {(c.path, c.old, c.new) for c in forward} == backward


@FEW
@given(pairs())
def test_update_uses_only_vocabulary_words(pair: tuple[KubeObject, KubeObject]) -> None:
    old, new = pair
    found = _detect(old, new)
    if found is None:
        assert signals_between(old, new) == frozenset()
        return
    kind = kind_of(new)
    assert found.event is EventType.UPDATED
    assert found.old_states | found.new_states <= states_for(kind, kinds=KINDS)
    assert found.signals <= signals_for(kind, kinds=KINDS)
    assert found.changes == changes_between(old, new)


@FEW
@given(pairs())
def test_a_signal_always_comes_with_a_changed_field(pair: tuple[KubeObject, KubeObject]) -> None:
    old, new = pair
    if signals_between(old, new):
        assert changes_between(old, new)


@FEW
@given(pairs(), st.booleans())
def test_detect_all_splits_exactly_on_uid(pair: tuple[KubeObject, KubeObject], gone: bool) -> None:
    old, new = pair
    found = detect_all(old, new, origin=Origin.RELIST, observed_at=1.0, correlation_id="p")
    if old.metadata.uid != new.metadata.uid:
        assert [t.event for t in found] == [EventType.DELETED, EventType.ADDED]
    else:
        assert [t.event for t in found] in ([], [EventType.UPDATED])
    edge = detect_all(
        None if gone else old,
        None if not gone else new,
        origin=Origin.LIVE,
        observed_at=1.0,
        correlation_id="p",
    )
    assert [t.event for t in edge] == [EventType.ADDED if gone else EventType.DELETED]
