"""What the rules hand to delivery: one notification bound for one sink.

Glossary: a *notification* is one message for one sink, produced when a
rule (or a group digest) matched. A *delivery* is one attempt to send it.

It carries what happened, neutrally: ``facts``, the variables a receiver's
template sees, plain values only (the transition, states, severity,
fingerprint, ``status`` firing or resolved, a digest's ``members``;
``context`` once enriched). Every receiver renders its own body from them
(``notifier.sinks``): nothing here is any receiver's format.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import msgspec

ContextPart = Literal["logs", "events", "owners", "changes"]
CONTEXT_PARTS: tuple[ContextPart, ...] = ("logs", "events", "owners", "changes")
Facts = dict[str, Any]  # template variables as plain values (no objects): JSON all through
# What facts may hold: the rules' template variables for one transition and for a digest
# (rules/facts/contexts.py, checked by a test), without the objects; what the rules add for
# receivers; and ``context`` once enrichment attached it.
FACT_NAMES = frozenset(
    {
        "cluster", "rule", "kind", "namespace", "name", "key", "uid", "resource_version",
        "event", "origin", "old_states", "new_states", "entered", "left", "signals", "reached",
        "state", "transition", "summary", "severity", "reason", "message", "container",
        "restart_count", "exit_code", "owner", "owner_text", "age", "age_seconds", "changes",
        "changes_text", "details", "replicas", "labels", "annotations", "observed_at",
        "catch_up", "final_state_unknown", "status", "resolved", "resolved_states", "told_severity",
        "fingerprint", "count", "omitted", "members", "items", "group", "group_text", "kinds",
        "rule_labels", "send_resolved", "fired_at", "told_states", "context", "active_since",
        "active_for", "folded",
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class ContextRequest:
    """What a rule with ``enrich:`` asks delivery to fetch and attach before sending.

    Built from the object as the rule saw it; delivery fetches it once for all
    the rule's sinks (``key``), off the workers' path (``notifier.enrichment``).
    """

    parts: tuple[ContextPart, ...]
    kind: str
    namespace: str
    name: str
    uid: str
    resource_version: str
    logs: tuple[tuple[str, bool], ...] = ()  # (container, previous instance?)
    owner: tuple[str, str] | None = None  # (kind, name) of its controller

    @property
    def key(self) -> str:
        return f"{self.uid or self.namespace + '/' + self.name}@{self.resource_version}"


@dataclass(frozen=True, slots=True)
class Notification:
    id: str  # idempotency key: stable for the same rule, sink and transition
    sink: str  # the sink's configured name
    rule: str  # the rule (or group) that produced it
    ordering_key: str  # "Kind/namespace/name": order is kept per (sink, ordering_key)
    facts: Facts  # what happened, for the receiver to render its body from
    observed_at: float  # time.time() when the change was observed
    catch_up: bool = False  # produced by comparing with state from before a restart
    thread_key: str | None = None  # a rule's ``thread_by``: same key, same thread
    resolves: bool = False  # the end of what was told (send_resolved)
    correlation_id: str = ""  # the transition's, so logs tie match and delivery together
    context: ContextRequest | None = None  # context to attach before sending (``enrich:``)
    fingerprint: str = ""  # rule + object: the same in a firing and its resolution
    closes_thread: bool = False  # a resolution that replaces its thread's first message

    @property
    def status(self) -> Literal["firing", "resolved"]:
        return "resolved" if self.resolves else "firing"


_decoder = msgspec.json.Decoder(Notification)


def decoded(body: bytes) -> Notification:
    """A notification from its JSON (the outbox, the dead letters), written by any version.

    One written before every notification carried facts has ``facts`` null and the
    text the rules rendered (``message.text``): that text becomes its facts' summary.
    Raises ``msgspec.DecodeError`` when the body is no notification.
    """
    try:
        return _decoder.decode(body)
    except msgspec.ValidationError:
        written = msgspec.json.decode(body)
        if not isinstance(written, dict) or written.get("facts") is not None:
            raise
    message = written.pop("message", None)
    text = message.get("text", "") if isinstance(message, dict) else ""
    written["facts"] = {"summary": str(text), "rule": str(written.get("rule", ""))}
    return _decoder.decode(msgspec.json.encode(written))
