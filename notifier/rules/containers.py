"""Which container a Pod message is about, and what to say of it.

A Pod with several containers usually has one that explains the change:
the one waiting in a back-off, terminated with a non-zero code, or
restarted since the last state we acted on. ``container_facts`` picks it
(init containers after app containers) and returns plain values, or None
when every container is fine.
"""

from __future__ import annotations

from typing import Any

from notifier.objects import ContainerStatus, Pod

_BENIGN_WAITING = frozenset({"", "ContainerCreating", "PodInitializing"})


def container_facts(pod: Pod, old: Pod | None) -> dict[str, Any] | None:
    restarts_before = _restart_counts(old)
    statuses = pod.status.container_statuses + pod.status.init_container_statuses
    for status in statuses:
        if _is_troubled(status, restarts_before.get(status.name, status.restart_count)):
            return _describe(status)
    return None


def _restart_counts(pod: Pod | None) -> dict[str, int]:
    if pod is None:
        return {}
    statuses = pod.status.container_statuses + pod.status.init_container_statuses
    return {status.name: status.restart_count for status in statuses}


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
