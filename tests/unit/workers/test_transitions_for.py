"""transitions_for: one worker pass over one key, from the known state and what was pending.

Each test is a story of one pod of Deployment "web": what this process knew
(``prev``), what arrived while the key waited in the queue (the deltas), and
what the cache holds when the worker gets to it (``current``).
"""

from __future__ import annotations

from typing import Any

import msgspec

from notifier.kinds.pod import Pod
from notifier.objects import EventType, Kind, KubeObject, ObjectKey
from notifier.origin import Origin
from notifier.source.deltas import Delta
from notifier.transitions.model import Transition
from notifier.workers.pending import Pending
from notifier.workers.worker import transitions_for

UID = "5f0e2c1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b"
KEY = ObjectKey("shop/web-7d4b9c6f5d-x2x9k")
OBSERVED_AT = 1_715_678_000.5


def _container(*, ready: bool, restarts: int, waiting: str) -> dict[str, Any]:
    state = {"waiting": {"reason": waiting}} if waiting else {"running": {}}
    return {
        "name": "web",
        "ready": ready,
        "restartCount": restarts,
        "image": "registry.example.com/shop/web:v1",
        "state": state,
    }


def _pod(
    version: str,
    *,
    uid: str = UID,
    phase: str = "Running",
    ready: bool = True,
    restarts: int = 0,
    waiting: str = "",
    deleting: bool = False,
) -> Pod:
    metadata: dict[str, Any] = {
        "name": "web-7d4b9c6f5d-x2x9k",
        "namespace": "shop",
        "uid": uid,
        "resourceVersion": version,
        "creationTimestamp": "2024-05-14T09:12:03Z",
        "labels": {"app": "web", "pod-template-hash": "7d4b9c6f5d"},
        "ownerReferences": [{"kind": "ReplicaSet", "name": "web-7d4b9c6f5d", "controller": True}],
    }
    if deleting:
        metadata["deletionTimestamp"] = "2024-05-14T09:20:00Z"
    status: dict[str, Any] = {"phase": phase}
    if phase == "Running":
        status["conditions"] = [{"type": "Ready", "status": "True" if ready else "False"}]
        status["containerStatuses"] = [_container(ready=ready, restarts=restarts, waiting=waiting)]
    spec = {"nodeName": "node-1", "containers": [{"name": "web", "image": "web:v1"}]}
    return msgspec.convert(
        {"kind": "Pod", "metadata": metadata, "spec": spec, "status": status}, type=Pod
    )


SCHEDULED = _pod("184203", phase="Pending")
READY = _pod("184260")
CRASHING = _pod("184399", ready=False, restarts=3, waiting="CrashLoopBackOff")
TERMINATING = _pod("184420", ready=False, restarts=3, waiting="CrashLoopBackOff", deleting=True)
RECREATED = _pod("185001", uid="9c1e77d0-4a2b-4c3d-8e9f-1a2b3c4d5e6f", phase="Pending")


def _delta(
    kind: EventType, obj: KubeObject, origin: Origin = Origin.LIVE, *, unknown: bool = False
) -> Delta:
    return Delta(Kind.POD, KEY, kind, obj, origin, unknown)


def _pass(prev: KubeObject | None, current: KubeObject | None, *deltas: Delta) -> list[Transition]:
    pending = Pending()
    for delta in deltas:
        pending.add(delta)
    return _pass_with(prev, current, pending)


def _pass_with(
    prev: KubeObject | None, current: KubeObject | None, pending: Pending
) -> list[Transition]:
    transitions = transitions_for(prev, current, pending, observed_at=OBSERVED_AT)
    assert all(t.observed_at == OBSERVED_AT and t.correlation_id for t in transitions)
    assert all((t.kind, t.key) == (Kind.POD, KEY) for t in transitions)
    return transitions


def _story(transitions: list[Transition]) -> list[tuple[EventType, Origin]]:
    return [(t.event, t.origin) for t in transitions]


def _versions(transitions: list[Transition]) -> list[tuple[str | None, str | None]]:
    """(old, new) resourceVersions of each transition: which states were compared."""

    def version(obj: KubeObject | None) -> str | None:
        return None if obj is None else obj.metadata.resource_version

    return [(version(t.old), version(t.new)) for t in transitions]


def test_first_sighting_from_the_initial_list_is_an_initial_list_add() -> None:
    transitions = _pass(None, READY, _delta(EventType.ADDED, READY, Origin.INITIAL_LIST))
    assert _story(transitions) == [(EventType.ADDED, Origin.INITIAL_LIST)]
    assert transitions[0].new is READY
    assert {"Running", "Ready"} <= transitions[0].new_states


def test_on_a_later_start_an_object_listed_with_no_saved_state_is_a_catch_up_add() -> None:
    # It appeared while we were away, or its add was never acted on before a crash.
    pending = Pending()
    pending.add(_delta(EventType.ADDED, CRASHING, Origin.INITIAL_LIST))
    transitions = transitions_for(None, CRASHING, pending, observed_at=1.0, first_start=False)
    assert _story(transitions) == [(EventType.ADDED, Origin.CATCH_UP)]
    assert "CrashLoopBackOff" in transitions[0].entered


def test_a_live_add_is_a_live_add() -> None:
    transitions = _pass(None, SCHEDULED, _delta(EventType.ADDED, SCHEDULED))
    assert _story(transitions) == [(EventType.ADDED, Origin.LIVE)]
    assert transitions[0].signals == {"Created"}


def test_initial_list_and_a_live_change_coalesced_are_split_at_the_listed_state() -> None:
    transitions = _pass(
        None,
        CRASHING,
        _delta(EventType.ADDED, READY, Origin.INITIAL_LIST),
        _delta(EventType.UPDATED, CRASHING),
    )
    assert _story(transitions) == [
        (EventType.ADDED, Origin.INITIAL_LIST),
        (EventType.UPDATED, Origin.LIVE),
    ]
    assert _versions(transitions) == [(None, "184260"), ("184260", "184399")]
    assert {"CrashLoopBackOff", "NotReady"} <= transitions[1].entered
    assert "RestartCountIncreased" in transitions[1].signals


def test_updates_then_a_delete_end_with_the_tombstone() -> None:
    transitions = _pass(
        READY,
        None,
        _delta(EventType.UPDATED, CRASHING),
        _delta(EventType.DELETED, TERMINATING),
    )
    assert _story(transitions) == [
        (EventType.UPDATED, Origin.LIVE),
        (EventType.DELETED, Origin.LIVE),
    ]
    assert _versions(transitions) == [("184260", "184420"), ("184420", None)]
    assert "Terminating" in transitions[0].entered
    assert not transitions[1].final_state_unknown
    assert transitions[1].signals == {"Deleted"}


def test_delete_and_re_create_before_processing_is_a_delete_then_an_add() -> None:
    # The delete event carried the state we already knew (only resourceVersion moved).
    gone = msgspec.structs.replace(
        READY, metadata=msgspec.structs.replace(READY.metadata, resource_version="184990")
    )
    transitions = _pass(
        READY,
        RECREATED,
        _delta(EventType.DELETED, gone),
        _delta(EventType.ADDED, RECREATED),
    )
    assert _story(transitions) == [(EventType.DELETED, Origin.LIVE), (EventType.ADDED, Origin.LIVE)]
    assert transitions[0].old is gone and not transitions[0].final_state_unknown
    assert transitions[1].new is RECREATED


def test_a_new_uid_seen_without_its_delete_is_a_delete_of_unknown_final_state_then_an_add() -> None:
    # What the reflector hands on when a MODIFIED/ADDED shows a new UID under a known key.
    transitions = _pass(
        READY,
        RECREATED,
        _delta(EventType.DELETED, READY, unknown=True),
        _delta(EventType.ADDED, RECREATED),
    )
    assert _story(transitions) == [(EventType.DELETED, Origin.LIVE), (EventType.ADDED, Origin.LIVE)]
    assert transitions[0].final_state_unknown


def test_known_before_a_restart_and_absent_now_is_a_catch_up_delete() -> None:
    # What Intake.enqueue_vanished leaves pending: only the CATCH_UP mark.
    transitions = _pass_with(CRASHING, None, Pending(origins=frozenset({Origin.CATCH_UP})))
    assert _story(transitions) == [(EventType.DELETED, Origin.CATCH_UP)]
    assert transitions[0].old is CRASHING
    assert transitions[0].final_state_unknown


def test_a_delete_found_by_a_relist_keeps_its_origin_and_flag() -> None:
    transitions = _pass(READY, None, _delta(EventType.DELETED, READY, Origin.RELIST, unknown=True))
    assert _story(transitions) == [(EventType.DELETED, Origin.RELIST)]
    assert transitions[0].final_state_unknown


def test_a_resync_of_an_unchanged_object_is_nothing() -> None:
    assert _pass(READY, READY, _delta(EventType.UPDATED, READY, Origin.RESYNC)) == []


def test_a_changed_object_found_by_the_initial_list_with_durable_state_is_a_catch_up() -> None:
    transitions = _pass(READY, CRASHING, _delta(EventType.ADDED, CRASHING, Origin.INITIAL_LIST))
    assert _story(transitions) == [(EventType.UPDATED, Origin.CATCH_UP)]
    assert _versions(transitions) == [("184260", "184399")]
    assert "CrashLoopBackOff" in transitions[0].entered


def test_an_unchanged_object_found_by_the_initial_list_with_durable_state_is_nothing() -> None:
    assert _pass(READY, READY, _delta(EventType.ADDED, READY, Origin.INITIAL_LIST)) == []


def test_catch_up_and_a_live_change_coalesced_are_split_at_the_listed_state() -> None:
    # Known Ready before the restart; crash-looping at the initial list; then deleted live.
    transitions = _pass(
        READY,
        TERMINATING,
        _delta(EventType.ADDED, CRASHING, Origin.INITIAL_LIST),
        _delta(EventType.UPDATED, TERMINATING),
    )
    assert _story(transitions) == [
        (EventType.UPDATED, Origin.CATCH_UP),
        (EventType.UPDATED, Origin.LIVE),
    ]
    assert _versions(transitions) == [("184260", "184399"), ("184399", "184420")]
