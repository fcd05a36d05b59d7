"""What a message can say about a transition: the variables templates see.

``single_context`` turns one transition into a flat dict of plain values
(strings, numbers, lists, small dicts) plus the objects themselves (``obj``,
``old``, ``new``). ``digest_context`` does the same for a group of
transitions. The names are listed in ``SINGLE_NAMES`` / ``DIGEST_NAMES`` so
templates can be checked for unknown variables at load; docs/rules.md
describes each one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec

from notifier.kinds.registry import KINDS, severities, spec_of
from notifier.kinds.spec import REPLICAS
from notifier.notifications import Facts
from notifier.objects import timestamp
from notifier.templating.environment import format_duration
from notifier.transitions.model import Transition

# Display order: what needs attention first (each kind says which of its states are trouble).
_CRITICAL_ORDER, _WARNING_ORDER = severities(kinds=KINDS)
_RANK = {name: rank for rank, name in enumerate((*_CRITICAL_ORDER, *_WARNING_ORDER))}
_MAX_CHANGES_SHOWN = 5
_MAX_VALUE_CHARS = 80

SINGLE_NAMES = frozenset(
    {
        "cluster", "rule", "kind", "namespace", "name", "key", "uid", "resource_version",
        "event", "origin", "old_states", "new_states", "entered", "left", "signals", "reached",
        "state", "transition", "summary", "severity", "reason", "message", "container",
        "restart_count", "exit_code", "owner", "owner_text", "age", "age_seconds", "changes",
        "changes_text", "details", "replicas", "labels", "annotations", "obj", "old", "new",
        "observed_at", "catch_up", "final_state_unknown", "status", "resolved",
        "resolved_states", "told_severity", "fingerprint", "active_since", "active_for",
    }
)  # fmt: skip
DIGEST_NAMES = frozenset(
    {"cluster", "rule", "count", "omitted", "members", "items", "group", "group_text",
     "kinds", "summary", "severity", "observed_at"}
)  # fmt: skip


def ordered(names: Iterable[str]) -> list[str]:
    """States and signals in display order: problems first, then alphabetical."""
    return sorted(names, key=lambda name: (_RANK.get(name, len(_RANK)), name))


def single_context(
    transition: Transition, *, cluster: str, rule: str, owner: tuple[str, str] | None
) -> dict[str, Any]:
    obj, meta = transition.obj, transition.obj.metadata
    reached = ordered(transition.reached)
    context: dict[str, Any] = {
        "cluster": cluster,
        "rule": rule,
        "kind": str(transition.kind),
        "namespace": meta.namespace,
        "name": meta.name,
        "key": str(transition.key),
        "uid": meta.uid,
        "resource_version": meta.resource_version,
        "event": str(transition.event),
        "origin": str(transition.origin),
        "old_states": ordered(transition.old_states),
        "new_states": ordered(transition.new_states),
        "entered": ordered(transition.entered),
        "left": ordered(transition.left),
        "signals": ordered(transition.signals),
        "reached": reached,
        "state": reached[0] if reached else "",
        "severity": spec_of(obj).severity(reached),
        "owner": None if owner is None else {"kind": owner[0], "name": owner[1]},
        "owner_text": "" if owner is None else f"created by {owner[0]} {owner[1]}",
        "labels": dict(meta.labels),
        "annotations": dict(meta.annotations),
        "obj": obj,
        "old": transition.old,
        "new": transition.new,
        "observed_at": rfc3339(transition.observed_at),
        "catch_up": transition.origin == "catch_up",
        "final_state_unknown": transition.final_state_unknown,
        "status": "firing",  # "resolved" in a resolution (rules with send_resolved)
        "resolved": False,
        "resolved_states": [],
        "told_severity": "",  # in a resolution: the severity of what was told
        "fingerprint": "",  # the engine's: one rule, one object, firing and resolved alike
        "active_since": "",  # set when a rule's ``for:`` came due: when the state was entered
        "active_for": "",  # and how long ago, as ``15m``
    }
    context.update(_transition_text(transition, cluster))
    context.update(_age(meta.creation_timestamp, transition.observed_at))
    context.update(_changes(transition))
    context.update(_condition_facts(transition))
    context["details"] = _details(context, context.pop("kind_details"))
    return context


_SEVERITIES = ("info", "warning", "critical")


def _worst(severities: Iterable[str]) -> str:
    return max(severities, key=_SEVERITIES.index, default="info")


def resolution_context(context: dict[str, Any], states: frozenset[str]) -> dict[str, Any]:
    """``context`` (of the transition that ended it) told as the end of what ``states`` were."""
    told = ordered(states)
    now = ordered(context["new_states"]) or ([context["event"]] if context["event"] else [])
    text = f"resolved: {', '.join(told)} -> {', '.join(now) or 'gone'}"
    where = f"{context['kind']} {context['key']}"
    prefix = f"[{context['cluster']}] " if context["cluster"] else ""
    return {
        **context,
        "status": "resolved",
        "resolved": True,
        "resolved_states": told,
        "told_severity": spec_of(context["obj"]).severity(told) if "obj" in context else "",
        "transition": text,
        "summary": f"{prefix}{where}: {text}",
        "severity": "info",
    }


def held_context(context: dict[str, Any], since: float, now: float) -> dict[str, Any]:
    """``context`` of a state a ``for:`` timed: since when, for how long (``... for 15m``)."""
    held = format_duration(now - since)
    return {
        **context,
        "active_since": rfc3339(since),
        "active_for": held,
        "transition": f"{context['transition']} for {held}",
        "summary": f"{context['summary']} for {held}",
    }


def _transition_text(transition: Transition, cluster: str) -> dict[str, str]:
    before = ordered(transition.left) or ordered(transition.old_states)
    after = ordered(transition.reached) or ordered(transition.new_states)
    text = f"{', '.join(before) or str(transition.event)} -> {', '.join(after) or 'unchanged'}"
    where = f"{transition.kind} {transition.key}"
    prefix = f"[{cluster}] " if cluster else ""
    return {"transition": text, "summary": f"{prefix}{where}: {text}"}


def _age(created: str | None, observed_at: float) -> dict[str, Any]:
    started = timestamp(created)
    if started is None or observed_at <= 0:
        return {"age": "", "age_seconds": None}
    seconds = max(observed_at - started, 0.0)
    return {"age": format_duration(seconds), "age_seconds": int(seconds)}


def _changes(transition: Transition) -> dict[str, Any]:
    changes = [{"path": c.path, "old": c.old, "new": c.new} for c in transition.changes]
    shown = [
        f"{c.path}: {_clip(c.old)} -> {_clip(c.new)}"
        for c in transition.changes[:_MAX_CHANGES_SHOWN]
    ]
    hidden = len(changes) - len(shown)
    text = "; ".join(shown) + (f"; and {hidden} more" if hidden > 0 else "")
    return {"changes": changes, "changes_text": text}


def _clip(value: str | None) -> str:
    if value is None:
        return "(none)"
    return value if len(value) <= _MAX_VALUE_CHARS else value[: _MAX_VALUE_CHARS - 1] + "…"


def _condition_facts(transition: Transition) -> dict[str, Any]:
    """``reason``, ``message``, ``container``, ``restart_count`` and ``exit_code``, per kind."""
    obj, old = transition.obj, transition.old
    spec = spec_of(obj)
    found: dict[str, Any] = dict(spec.facts(obj, old if type(old) is type(obj) else None))
    found["kind_details"] = details = found.pop("details")
    found["replicas"] = next((value for label, value in details if label == REPLICAS), "")
    return found


def _details(context: dict[str, Any], kind_details: Iterable[tuple[str, str]]) -> list[list[str]]:
    """Label/value pairs for the default message, leaving out what is unknown."""
    pairs = [
        ["Reason", _joined(context["reason"], context["message"])],
        ["Container", _container_text(context["container"])],
        *([label, value] for label, value in kind_details),
        ["Owner", context["owner_text"]],
        ["Age", context["age"]],
        ["Changed", context["changes_text"]],
    ]
    return [pair for pair in pairs if pair[1]]


def _joined(reason: str, message: str) -> str:
    message = message if len(message) <= 500 else message[:499] + "…"
    return f"{reason}: {message}" if reason and message else reason or message


def _container_text(container: dict[str, Any] | None) -> str:
    if container is None:
        return ""
    parts = [container["name"]]
    if container["exit_code"] is not None:
        parts.append(f"exit code {container['exit_code']}")
    restarts = container["restart_count"]
    parts.append(f"{restarts} restart{'' if restarts == 1 else 's'}")
    if container["last_reason"]:
        parts.append(f"last terminated: {container['last_reason']}")
    return ", ".join(parts)


def digest_context(
    members: Sequence[dict[str, Any]],
    *,
    total: int,
    cluster: str,
    rule: str,
    group: Sequence[tuple[str, str]],
) -> dict[str, Any]:
    """The context of a group digest; ``members`` are single contexts, already truncated."""
    kinds = sorted({member["kind"] for member in members})
    reached = ordered({name for member in members for name in member["reached"]})
    group_text = ", ".join(f"{label}={value}" for label, value in group)
    noun = f"{kinds[0]}s" if len(kinds) == 1 else "objects"
    where = _common(members, "namespace")
    headline = f"{total} {noun}" + (f" in {where}" if where else "")
    headline += f": {', '.join(reached) or 'changed'} (rule {rule})"
    return {
        "cluster": cluster,
        "rule": rule,
        "count": total,
        "omitted": total - len(members),
        "members": list(members),
        "items": [_item(member) for member in members],
        "group": dict(group),
        "group_text": group_text,
        "kinds": kinds,
        "summary": (f"[{cluster}] " if cluster else "") + headline,
        "severity": _worst(member["severity"] for member in members),
        "observed_at": members[0]["observed_at"] if members else "",
    }


def _common(members: Sequence[dict[str, Any]], field: str) -> str:
    values = {member[field] for member in members}
    return values.pop() if len(values) == 1 else ""


def _item(member: dict[str, Any]) -> dict[str, Any]:
    fields = ("kind", "namespace", "name", "uid", "transition", "reason", "observed_at", "origin")
    return {field: member[field] for field in fields}


_OBJECTS = frozenset({"obj", "old", "new"})


def plain_facts(
    context: dict[str, Any],
    *,
    labels: Iterable[tuple[str, str]] = (),
    send_resolved: bool = False,
    fired_at: float = 0.0,
    told: Iterable[str] = (),
) -> Facts:
    """What a receiver renders its own body from: ``context`` without the objects themselves.

    ``rule_labels`` are the rule's ``labels:``; ``send_resolved`` says whether the end will
    be told (a receiver that must refresh what is open, Alertmanager, keeps only those);
    ``fired_at`` is when a resolution's firing began; ``told_states`` the states a
    firing tells (and its resolution ends), foremost first, as ``send_resolved`` keeps them.
    """
    facts = {name: value for name, value in context.items() if name not in _OBJECTS}
    if "members" in facts:
        facts["members"] = [
            {name: value for name, value in member.items() if name not in _OBJECTS}
            for member in facts["members"]
        ]
    facts["rule_labels"] = dict(labels)
    facts["send_resolved"] = send_resolved
    facts["fired_at"] = rfc3339(fired_at) or context.get("observed_at", "")
    facts["told_states"] = ordered(told)
    plain: Facts = msgspec.to_builtins(facts)
    return plain


def rfc3339(seconds: float) -> str:
    if seconds <= 0:
        return ""
    return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")
