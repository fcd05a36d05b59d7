"""Realistic objects and transitions for rules tests, built from API-shaped JSON."""

from __future__ import annotations

import copy
from typing import Any

import msgspec

from notifier.kinds.registry import KINDS
from notifier.objects import EventType, Kind, KubeObject, key_of, kind_of
from notifier.origin import Origin
from notifier.rules.compiling import RulesSource, compile_ruleset
from notifier.rules.config.specs import (
    DefaultsSpec,
    InhibitSpec,
    MuteIntervalSpec,
    RuleSpec,
)
from notifier.rules.ruleset import Ruleset
from notifier.transitions.model import Change, Transition

NOW = 1_714_558_000.0  # 2024-05-01T10:06:40Z

POD_JSON: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "name": "web-7d4b9c6f5d-x2x9q",
        "namespace": "shop",
        "uid": "0f6c2a51-8a7e-4c1e-9e35-1f3c0c9d2b11",
        "resourceVersion": "48213",
        "creationTimestamp": "2024-05-01T10:00:00Z",
        "labels": {"app": "web", "tier": "frontend", "pod-template-hash": "7d4b9c6f5d"},
        "annotations": {"team": "storefront"},
        "ownerReferences": [
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": "web-7d4b9c6f5d",
                "uid": "b1",
                "controller": True,
            }
        ],
        "managedFields": [{"manager": "kube-controller-manager"}],
    },
    "spec": {
        "nodeName": "node-a",
        "restartPolicy": "Always",
        "containers": [{"name": "web", "image": "registry.example/web:1.4.2"}],
    },
    "status": {
        "phase": "Running",
        "startTime": "2024-05-01T10:00:02Z",
        "conditions": [{"type": "Ready", "status": "True"}],
        "containerStatuses": [
            {
                "name": "web",
                "ready": True,
                "restartCount": 2,
                "image": "registry.example/web:1.4.2",
                "state": {"running": {"startedAt": "2024-05-01T10:03:00Z"}},
            }
        ],
    },
}

CRASHLOOP_STATUS: dict[str, Any] = {
    "phase": "Running",
    "conditions": [{"type": "Ready", "status": "False", "reason": "ContainersNotReady"}],
    "containerStatuses": [
        {
            "name": "web",
            "ready": False,
            "restartCount": 3,
            "image": "registry.example/web:1.4.2",
            "state": {
                "waiting": {
                    "reason": "CrashLoopBackOff",
                    "message": "back-off 40s restarting failed container=web",
                }
            },
            "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}},
        }
    ],
}

DEPLOYMENT_JSON: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {
        "name": "web",
        "namespace": "shop",
        "uid": "d-1",
        "resourceVersion": "900",
        "generation": 4,
        "creationTimestamp": "2024-04-30T10:00:00Z",
        "labels": {"app": "web"},
    },
    "spec": {
        "replicas": 3,
        "progressDeadlineSeconds": 600,
        "template": {"spec": {"containers": [{"name": "web", "image": "web:1.5.0"}]}},
    },
    "status": {
        "observedGeneration": 4,
        "replicas": 3,
        "updatedReplicas": 1,
        "readyReplicas": 2,
        "availableReplicas": 2,
        "conditions": [
            {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"},
            {
                "type": "Progressing",
                "status": "False",
                "reason": "ProgressDeadlineExceeded",
                "message": 'ReplicaSet "web-5f7" has timed out progressing.',
            },
        ],
    },
}

SERVICE_JSON: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "web", "namespace": "shop", "uid": "s-1", "resourceVersion": "77"},
    "spec": {
        "type": "LoadBalancer",
        "clusterIP": "10.0.0.12",
        "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}],
        "selector": {"app": "web"},
    },
}


def changed(base: dict[str, Any], **updates: Any) -> dict[str, Any]:
    """A deep copy of ``base`` with top-level sections merged (``metadata={...}``)."""
    result = copy.deepcopy(base)
    for section, values in updates.items():
        if isinstance(values, dict) and isinstance(result.get(section), dict):
            result[section] = {**result[section], **copy.deepcopy(values)}
        else:
            result[section] = copy.deepcopy(values)
    return result


def decode(data: dict[str, Any]) -> KubeObject:
    obj: KubeObject = msgspec.convert(data, type=KINDS[Kind(data["kind"])].struct)
    return obj


def transition(
    old: dict[str, Any] | None,
    new: dict[str, Any] | None,
    *,
    old_states: set[str] | frozenset[str] = frozenset(),
    new_states: set[str] | frozenset[str] = frozenset(),
    signals: set[str] | frozenset[str] = frozenset(),
    changes: tuple[Change, ...] = (),
    origin: Origin = Origin.LIVE,
    observed_at: float = NOW,
) -> Transition:
    old_obj = decode(old) if old is not None else None
    new_obj = decode(new) if new is not None else None
    current = new_obj if new_obj is not None else old_obj
    assert current is not None
    event = (
        EventType.ADDED if old is None else EventType.DELETED if new is None else EventType.UPDATED
    )
    return Transition(
        kind=kind_of(current),
        key=key_of(current),
        event=event,
        origin=origin,
        old=old_obj,
        new=new_obj,
        changes=changes,
        old_states=frozenset(old_states),
        new_states=frozenset(new_states),
        signals=frozenset(signals),
        observed_at=observed_at,
        correlation_id="test",
    )


def crashloop(**overrides: Any) -> Transition:
    """A Deployment's pod going from Ready to CrashLoopBackOff after an OOM kill."""
    new = changed(POD_JSON, status=CRASHLOOP_STATUS, **overrides)
    old = changed(POD_JSON, **overrides)
    return transition(
        old,
        new,
        old_states={"Running", "Ready"},
        new_states={"Running", "NotReady", "CrashLoopBackOff", "OOMKilled"},
        signals={"RestartCountIncreased"},
        changes=(Change("status.containerStatuses[web].restartCount", "2", "3"),),
    )


def ruleset(
    rules: list[dict[str, Any]],
    *,
    sinks: dict[str, bool] | None = None,
    defaults: dict[str, Any] | None = None,
    templates: dict[str, Any] | None = None,
    mute_windows: dict[str, list[dict[str, Any]]] | None = None,
    cluster: str = "prod-eu",
    inhibit_rules: list[dict[str, Any]] | None = None,
) -> Ruleset:
    """Compile rules written as they would be in YAML."""
    return compile_ruleset(
        RulesSource(
            rules=[(i, RuleSpec.model_validate(rule)) for i, rule in enumerate(rules)],
            defaults=DefaultsSpec.model_validate(defaults or {}),
            templates=templates or {},
            mute_windows={
                n: [MuteIntervalSpec.model_validate(i) for i in w]
                for n, w in (mute_windows or {}).items()
            },
            sinks=sinks if sinks is not None else {"console": True, "slack": True, "off": False},
            cluster_name=cluster,
            inhibit_rules=[InhibitSpec.model_validate(i) for i in inhibit_rules or []],
        )
    )


ALL_KINDS = tuple(KINDS)
