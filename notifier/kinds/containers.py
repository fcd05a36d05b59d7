"""A Pod's containers: their statuses, OOM kills, restarts, and which one a message is about.

A Pod with several containers usually has one that explains the change:
the one waiting in a back-off, terminated with a non-zero code, or
restarted since the last state we acted on. ``container_facts`` picks it
(init containers after app containers) and returns plain values, or None
when every container is fine.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import msgspec

from notifier.kinds.diffing import Fields, changed_items, name_of, with_reason
from notifier.kinds.sharing import Sharing
from notifier.objects import Wire

OOM_KILLED = "OOMKilled"
_BENIGN_WAITING = frozenset({"", "ContainerCreating", "PodInitializing"})


class ContainerStateWaiting(Wire, frozen=True):
    reason: str = ""
    message: str = ""


class ContainerStateRunning(Wire, frozen=True):
    """Running: only that it runs is read. ``startedAt`` is left out (nothing reads it):
    with it, every container status was its own (~225 bytes a container at 100,000
    Pods); without, the statuses of a Deployment's Pods are shared (``share_statuses``)."""


class ContainerStateTerminated(Wire, frozen=True):
    exit_code: int = 0
    reason: str = ""
    message: str = ""
    signal: int = 0
    finished_at: str | None = None


class ContainerState(Wire, frozen=True):
    waiting: ContainerStateWaiting | None = None
    running: ContainerStateRunning | None = None
    terminated: ContainerStateTerminated | None = None


class ContainerStatus(Wire, frozen=True):
    name: str = ""
    ready: bool = False
    restart_count: int = 0
    image: str = ""
    state: ContainerState = ContainerState()
    last_state: ContainerState = ContainerState()


_EMPTY_STATE = ContainerState()


def down_after_oom(container: ContainerStatus) -> bool:
    """Terminated by an OOM kill, or waiting to be started again after one.

    A container that runs again after its OOM kill has left the state, even
    though ``lastState`` still remembers the kill: that keeps OOMKilled a level.
    """
    terminated = container.state.terminated
    if terminated is not None:
        return terminated.reason == OOM_KILLED
    return container.state.waiting is not None and last_oom(container)


def last_oom(container: ContainerStatus) -> bool:
    last = container.last_state.terminated
    return last is not None and last.reason == OOM_KILLED


def restarted(
    old: tuple[ContainerStatus, ...], new: tuple[ContainerStatus, ...]
) -> Iterator[ContainerStatus]:
    """Statuses of ``new`` whose restartCount grew since ``old`` (matched by name)."""
    if old == new:
        return
    before, after = changed_items(old, new, name_of)
    for name, status in after.items():
        was = before.get(name)
        if status.restart_count > (0 if was is None else was.restart_count):
            yield status


def render_state(state: ContainerState) -> str | None:
    """``waiting:CrashLoopBackOff``, ``running``, ``terminated:OOMKilled(137)``; None if unset."""
    if state.waiting is not None:
        return with_reason("waiting", state.waiting.reason)
    if state.terminated is not None:
        terminated = state.terminated
        return f"{with_reason('terminated', terminated.reason)}({terminated.exit_code})"
    if state.running is not None:
        return "running"
    return None


def status_fields(status: ContainerStatus) -> Fields:
    fields = {".ready": str(status.ready), ".restartCount": str(status.restart_count)}
    state, last_state = render_state(status.state), render_state(status.last_state)
    if state is not None:
        fields[".state"] = state
    if last_state is not None:
        fields[".lastState"] = last_state
    return fields


def share_statuses(
    sharing: Sharing, statuses: tuple[ContainerStatus, ...]
) -> tuple[ContainerStatus, ...]:
    if not statuses:
        return ()
    intern = sharing.values.intern
    # Each status, then the tuple, is shared whole: a Deployment's Pods mostly have the
    # same ones (running, ready, the same restart counts); one that differs still shares
    # the others.
    return intern(
        tuple(
            [
                intern(
                    msgspec.structs.replace(
                        status,
                        name=intern(status.name),
                        image=intern(status.image),
                        state=_shared_state(sharing, status.state),
                        last_state=_shared_state(sharing, status.last_state),
                    )
                )
                for status in statuses
            ]
        )
    )


def _shared_state(sharing: Sharing, state: ContainerState) -> ContainerState:
    """The one empty state (``lastState: {}`` of a container that never restarted), or the
    shared one: a state holds no per-object value but a message or an exit's time."""
    return _EMPTY_STATE if state == _EMPTY_STATE else sharing.values.intern(state)


def container_facts(
    statuses: Sequence[ContainerStatus], before: Sequence[ContainerStatus]
) -> dict[str, Any] | None:
    """The container the message is about, as plain values; None when all are fine."""
    restarts_before = {status.name: status.restart_count for status in before}
    for status in statuses:
        if _is_troubled(status, restarts_before.get(status.name, status.restart_count)):
            return _describe(status)
    return None


def log_sources(statuses: Sequence[ContainerStatus], most: int = 3) -> tuple[tuple[str, bool], ...]:
    """Containers whose log tells why they are in trouble: (name, from the previous instance?).

    A container that ended badly and was not started again has its own log; one
    waiting to start again (a crash loop) or restarted has it in the instance
    before (``previous=true``). Healthy containers are left out.
    """
    sources: list[tuple[str, bool]] = []
    for status in statuses:
        terminated = status.state.terminated
        if terminated is not None and terminated.exit_code != 0:
            sources.append((status.name, False))
        elif _crashed_before(status):
            sources.append((status.name, True))
    return tuple(sources[:most])


def _crashed_before(status: ContainerStatus) -> bool:
    last = status.last_state.terminated
    if status.restart_count == 0 or last is None:
        return False
    return status.state.waiting is not None or last.exit_code != 0


def _is_troubled(status: ContainerStatus, restarts_before: int) -> bool:
    state = status.state
    if state.waiting is not None and state.waiting.reason not in _BENIGN_WAITING:
        return True
    if state.terminated is not None and state.terminated.exit_code != 0:
        return True
    return status.restart_count > restarts_before


def _describe(status: ContainerStatus) -> dict[str, Any]:
    state, last = status.state, status.last_state.terminated
    terminated = state.terminated or last
    if state.waiting is not None:
        name, reason, message = "waiting", state.waiting.reason, state.waiting.message
    elif state.terminated is not None:
        name, reason, message = "terminated", state.terminated.reason, state.terminated.message
    else:  # running again after a restart: the last termination is the story
        name = "running" if state.running else "unknown"
        reason, message = (last.reason, last.message) if last is not None else ("", "")
    return {
        "name": status.name,
        "image": status.image,
        "state": name,
        "reason": reason,
        "message": message,
        "exit_code": terminated.exit_code if terminated is not None else None,
        "restart_count": status.restart_count,
        "last_reason": last.reason if last is not None else "",
        "ready": status.ready,
    }
