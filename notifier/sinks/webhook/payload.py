"""The webhook's JSON body from the facts: the ``kube-notifier/v1`` schema (docs/rules.md).

``type: transition`` for one object, ``type: digest`` for a group; the
enriched context, when there is one, as ``context``. ``schema`` changes only
when a field is removed or changes meaning. A sink's ``template:`` may
replace the body (``payload``: a structure whose strings are templates).
"""

from __future__ import annotations

from typing import Any

import msgspec

from notifier.notifications import Facts
from notifier.sinks.rendering import Part

SCHEMA = "kube-notifier/v1"
_OBJECT = ("kind", "namespace", "name", "uid", "resource_version", "labels")
_TRANSITION = ("old_states", "new_states", "entered", "left", "signals")
_ABOUT = ("reason", "message", "container", "restart_count", "owner", "age_seconds", "changes")
_SEEN = ("observed_at", "final_state_unknown", "status", "fingerprint")
_DIGEST = ("group", "count", "omitted", "items")


def payload_of(facts: Facts) -> dict[str, Any]:
    if "members" in facts:
        body = {**_head(facts, "digest"), **_picked(facts, _DIGEST)}
    else:
        body = {
            **_head(facts, "transition"),
            "object": _picked(facts, _OBJECT),
            "event": facts.get("event"),
            "origin": facts.get("origin"),
            "transition": {"text": facts.get("transition"), **_picked(facts, _TRANSITION)},
            **_picked(facts, _ABOUT),
            **_picked(facts, _SEEN),
        }
    for extra in ("folded", "context"):  # only where there is one
        if extra in facts:
            body[extra] = facts[extra]
    return body


def _head(facts: Facts, kind: str) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "type": kind,
        **_picked(facts, ("cluster", "rule", "severity", "summary")),
    }


def _picked(facts: Facts, names: tuple[str, ...]) -> dict[str, Any]:
    return {name: facts.get(name) for name in names}


def _as_payload(value: Any) -> dict[str, Any]:
    payload = msgspec.to_builtins(value)
    if not isinstance(payload, dict):
        raise TypeError("payload must render to a mapping")
    return payload


PARTS = {"payload": Part(payload_of, shaped=True, fit=_as_payload)}
