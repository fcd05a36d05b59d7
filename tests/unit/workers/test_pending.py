"""Pending: what survives while deltas of one key collapse into one queue entry."""

from __future__ import annotations

import msgspec
import pytest

from notifier.kinds.pod import Pod
from notifier.objects import EventType, Kind, ObjectKey
from notifier.origin import Origin
from notifier.source.deltas import Delta
from notifier.workers.pending import Pending

KEY = ObjectKey("shop/web-7d4b9c6f5d-x2x9k")


def _pod(version: str, *, phase: str = "Running", uid: str = "5f0e2c1a") -> Pod:
    return msgspec.convert(
        {
            "kind": "Pod",
            "metadata": {
                "name": "web-7d4b9c6f5d-x2x9k",
                "namespace": "shop",
                "uid": uid,
                "resourceVersion": version,
                "labels": {"app": "web"},
            },
            "spec": {"nodeName": "node-1", "containers": [{"name": "web", "image": "web:v1"}]},
            "status": {"phase": phase},
        },
        type=Pod,
    )


def _delta(kind: EventType, pod: Pod, origin: Origin, *, unknown: bool = False) -> Delta:
    return Delta(Kind.POD, KEY, kind, pod, origin, unknown)


def _pending(*deltas: Delta) -> Pending:
    pending = Pending()
    for delta in deltas:
        pending.add(delta)
    return pending


V1, V2, V3 = _pod("100", phase="Pending"), _pod("101"), _pod("102", phase="Failed")


# -- add ------------------------------------------------------------------------------------------


def test_updates_leave_only_their_origin() -> None:
    pending = _pending(
        _delta(EventType.ADDED, V1, Origin.LIVE), _delta(EventType.UPDATED, V2, Origin.LIVE)
    )
    assert pending == Pending(origins=frozenset({Origin.LIVE}))


def test_the_initial_list_sighting_is_kept_and_not_replaced_by_later_ones() -> None:
    pending = _pending(
        _delta(EventType.ADDED, V1, Origin.INITIAL_LIST),
        _delta(EventType.UPDATED, V2, Origin.LIVE),
        _delta(EventType.UPDATED, V2, Origin.RESYNC),
    )
    assert pending.listed is V1
    assert pending.origins == {Origin.INITIAL_LIST, Origin.LIVE, Origin.RESYNC}


def test_a_live_add_is_not_an_initial_list_sighting() -> None:
    assert _pending(_delta(EventType.ADDED, V1, Origin.LIVE)).listed is None


def test_a_delete_keeps_the_final_state() -> None:
    pending = _pending(
        _delta(EventType.UPDATED, V2, Origin.LIVE), _delta(EventType.DELETED, V3, Origin.LIVE)
    )
    assert pending.tombstone is V3
    assert not pending.final_state_unknown


def test_a_delete_found_by_a_relist_is_marked_final_state_unknown() -> None:
    pending = _pending(_delta(EventType.DELETED, V2, Origin.RELIST, unknown=True))
    assert (pending.tombstone, pending.final_state_unknown) == (V2, True)


def test_a_re_create_after_a_delete_keeps_the_tombstone() -> None:
    recreated = _pod("200", phase="Pending", uid="9c1e77d0")
    pending = _pending(
        _delta(EventType.DELETED, V2, Origin.LIVE), _delta(EventType.ADDED, recreated, Origin.LIVE)
    )
    assert pending.tombstone is V2


def test_the_latest_of_two_deletes_wins() -> None:
    second = _pod("300", uid="9c1e77d0")
    pending = _pending(
        _delta(EventType.DELETED, V2, Origin.LIVE, unknown=True),
        _delta(EventType.ADDED, second, Origin.LIVE),
        _delta(EventType.DELETED, second, Origin.LIVE),
    )
    assert (pending.tombstone, pending.final_state_unknown) == (second, False)


# -- origin -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("origins", "expected"),
    [
        ({Origin.LIVE, Origin.RELIST, Origin.INITIAL_LIST, Origin.RESYNC}, Origin.LIVE),
        ({Origin.INITIAL_LIST, Origin.LIVE}, Origin.LIVE),
        ({Origin.RELIST, Origin.CATCH_UP}, Origin.RELIST),
        ({Origin.RELIST, Origin.RESYNC}, Origin.RELIST),
        ({Origin.CATCH_UP, Origin.INITIAL_LIST}, Origin.CATCH_UP),
        ({Origin.INITIAL_LIST, Origin.RESYNC}, Origin.INITIAL_LIST),
        ({Origin.RESYNC}, Origin.RESYNC),
        (set(), Origin.LIVE),  # a key queued with nothing pending, e.g. a late retry
    ],
)
def test_the_strongest_origin_marks_the_transitions(origins: set[Origin], expected: Origin) -> None:
    assert Pending(origins=frozenset(origins)).origin(had_state=False) is expected


def test_an_initial_list_sighting_of_an_object_known_before_a_restart_is_a_catch_up() -> None:
    pending = Pending(origins=frozenset({Origin.INITIAL_LIST}))
    assert pending.origin(had_state=True) is Origin.CATCH_UP
    assert pending.origin(had_state=False) is Origin.INITIAL_LIST


@pytest.mark.parametrize("origin", [Origin.LIVE, Origin.RELIST, Origin.RESYNC])
def test_other_origins_are_not_turned_into_catch_ups(origin: Origin) -> None:
    assert Pending(origins=frozenset((origin,))).origin(had_state=True) is origin


# -- merge --------------------------------------------------------------------------------------


def test_merge_unites_origins() -> None:
    earlier = Pending(origins=frozenset({Origin.INITIAL_LIST}))
    earlier.merge(Pending(origins=frozenset({Origin.LIVE})))
    assert earlier.origins == {Origin.INITIAL_LIST, Origin.LIVE}


def test_merge_takes_a_later_delete_with_its_flag() -> None:
    earlier = Pending(origins=frozenset({Origin.LIVE}), tombstone=V1, final_state_unknown=False)
    earlier.merge(
        Pending(origins=frozenset({Origin.RELIST}), tombstone=V2, final_state_unknown=True)
    )
    assert (earlier.tombstone, earlier.final_state_unknown) == (V2, True)


def test_merge_keeps_an_earlier_delete_when_nothing_later_was_deleted() -> None:
    earlier = Pending(origins=frozenset({Origin.RELIST}), tombstone=V2, final_state_unknown=True)
    earlier.merge(Pending(origins=frozenset({Origin.LIVE})))
    assert (earlier.tombstone, earlier.final_state_unknown) == (V2, True)


def test_merge_keeps_the_earlier_initial_list_sighting() -> None:
    earlier = Pending(origins=frozenset({Origin.INITIAL_LIST}), listed=V1)
    earlier.merge(Pending(origins=frozenset({Origin.INITIAL_LIST}), listed=V2))
    assert earlier.listed is V1


def test_merge_takes_a_later_initial_list_sighting_when_it_had_none() -> None:
    earlier = Pending(origins=frozenset({Origin.LIVE}))
    earlier.merge(Pending(origins=frozenset({Origin.INITIAL_LIST}), listed=V2))
    assert earlier.listed is V2
