"""The names of states and signals, per kind: the words rules may use in ``from`` / ``to``.

Rules are validated against these sets at load, so a typo such as
``CrashLoopBackoff`` fails before anything runs.
"""

from __future__ import annotations

from notifier.objects import Kind

POD_PHASES = frozenset({"Pending", "Running", "Succeeded", "Failed", "Unknown"})

POD_STATES = POD_PHASES | {
    "Ready",
    "NotReady",
    "CrashLoopBackOff",
    "OOMKilled",
    "ImagePullBackOff",
    "ErrImagePull",
    "CreateContainerConfigError",
    "Evicted",
    "Terminating",
}
POD_SIGNALS = frozenset({"Created", "Deleted", "RestartCountIncreased"})

DEPLOYMENT_STATES = frozenset(
    {"Progressing", "Complete", "Stuck", "ReplicaFailure", "Available", "Unavailable", "Paused"}
)
DEPLOYMENT_SIGNALS = frozenset({"Created", "Deleted", "Scaled", "ImageChanged", "RolloutStarted"})

SERVICE_STATES: frozenset[str] = frozenset()
SERVICE_SIGNALS = frozenset(
    {"Created", "Deleted", "TypeChanged", "PortsChanged", "SelectorChanged"}
)

STATES: dict[Kind, frozenset[str]] = {
    Kind.POD: frozenset(POD_STATES),
    Kind.DEPLOYMENT: DEPLOYMENT_STATES,
    Kind.SERVICE: SERVICE_STATES,
}
SIGNALS: dict[Kind, frozenset[str]] = {
    Kind.POD: POD_SIGNALS,
    Kind.DEPLOYMENT: DEPLOYMENT_SIGNALS,
    Kind.SERVICE: SERVICE_SIGNALS,
}


def names_for(kind: Kind) -> frozenset[str]:
    """Every word a rule may use in ``from`` / ``to`` for ``kind``."""
    return STATES[kind] | SIGNALS[kind]
