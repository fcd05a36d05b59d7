"""The second workload: small Pods churned through phase transitions by status patches.

Issue #29's fleet, which the first workload (``fleet``: 8 KB Pods, label
patches, background churn) flatters us on: 10,000 small Pods, each one
container and a Pending status with one condition (about 2 KB as served, with
managedFields), 1,000 Deployments and 1,000 Services, and no background
churn. A change is a merge patch of the status subresource moving one churn
Pod to its next phase, Pending -> Running -> Failed -> Pending (the API
server accepts each of these), with the change's ``seq`` in the condition's
message: the watch floor reads it there. No label changes, so the
notifications name the Pod but no seq; they are scored as *mentions*
(``scoring.match_mentions``), first in, first out per Pod, for every subject
alike.

A Pod's next phase depends on the one it is in: before each trial the churn
Pods' phases are listed (``current_phases``) and a plan carries them, so
patch ``k`` of a Pod in a trial moves it ``k + 1`` steps along the cycle
and every patch is a transition.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Iterator, Mapping
from typing import Any

from bench.e2e.api import (
    JSON,
    MERGE_PATCH,
    ApiConnection,
    deployment_path,
    pod_path,
    service_path,
)
from bench.e2e.fleet import (
    APPS,
    CHURN_LABEL,
    UNSCHEDULED,
    FleetSize,
    Write,
    deployment_body,
    namespace_of,
    pod_name,
    service_body,
)

Body = dict[str, Any]
PHASES = ("Pending", "Running", "Failed")
CONDITION = "PodScheduled"
SEQ_MESSAGE = re.compile(r"^seq (\d+)$")
STARTED = "2026-01-05T09:30:00Z"


def small_pod_body(index: int, size: FleetSize) -> Body:
    app = APPS[index % len(APPS)]
    labels = {"app": f"{app}-pods"} | ({CHURN_LABEL: "1"} if index < size.churn_pods else {})
    return {
        "metadata": {"name": pod_name(index), "labels": labels},
        "spec": {
            "schedulerName": UNSCHEDULED,
            "containers": [{"name": app, "image": f"registry.example.com/{app}:1.4.2"}],
        },
    }


def status_of(phase: str, seq: int) -> Body:
    """A Pod status in ``phase`` with its one condition, which carries ``seq``."""
    scheduled = "False" if phase == "Pending" else "True"
    condition = {
        "type": CONDITION,
        "status": scheduled,
        "lastTransitionTime": STARTED,
        "message": f"seq {seq}",
    }
    return {"phase": phase, "conditions": [condition]}


def creations(size: FleetSize) -> Iterator[Write]:
    for i in range(size.pods):
        yield "POST", pod_path(namespace_of(i, size)), small_pod_body(i, size), JSON
    for i in range(size.deployments):
        yield "POST", deployment_path(namespace_of(i, size)), deployment_body(i), JSON
    for i in range(size.services):
        yield "POST", service_path(namespace_of(i, size)), service_body(i), JSON


def statuses(size: FleetSize) -> Iterator[Write]:
    """Every Pod Pending with its one condition (seq 0: no churn change)."""
    for i in range(size.pods):
        path = pod_path(namespace_of(i, size), pod_name(i)) + "/status"
        yield "PATCH", path, {"status": status_of("Pending", 0)}, MERGE_PATCH


def next_phase(start: int, step: int) -> str:
    """The phase after ``step + 1`` moves along the cycle from ``PHASES[start]``."""
    return PHASES[(start + step + 1) % len(PHASES)]


def change(namespace: str, name: str, start: int, step: int, seq: int) -> tuple[str, Body]:
    """The path and merge patch of a Pod's ``step``-th change of a trial."""
    path = pod_path(namespace, name) + "/status"
    return path, {"status": status_of(next_phase(start, step), seq)}


def seq_of(obj: Mapping[str, Any]) -> int | None:
    """The seq a Pod's condition carries, or None (not a churn change's Pod)."""
    for condition in (obj.get("status") or {}).get("conditions") or []:
        found = SEQ_MESSAGE.match(str(condition.get("message", "")))
        if condition.get("type") == CONDITION and found:
            return int(found.group(1))
    return None


def phase_indices(pods: Mapping[str, Any], keys: tuple[tuple[str, str], ...]) -> tuple[int, ...]:
    """Each churn Pod's phase as an index into ``PHASES`` (a list's items by namespace/name);
    a Pod missing or in another phase counts as Pending."""
    found = {
        f"{item['metadata']['namespace']}/{item['metadata']['name']}": (
            (item.get("status") or {}).get("phase")
        )
        for item in pods.get("items") or []
    }
    return tuple(_index(found.get(f"{ns}/{name}")) for ns, name in keys)


def _index(phase: object) -> int:
    return PHASES.index(phase) if phase in PHASES else 0


def current_phases(connection: ApiConnection, keys: tuple[tuple[str, str], ...]) -> tuple[int, ...]:
    """One list of the churn Pods: where each one's cycle stands now."""
    selector = urllib.parse.quote(f"{CHURN_LABEL}=1")
    listed = json.loads(connection.call("GET", f"/api/v1/pods?labelSelector={selector}"))
    return phase_indices(listed, keys)
