"""What the rules hand to delivery: a rendered message bound for one sink.

Glossary: a *notification* is one message for one sink, produced when a
rule (or a group digest) matched. A *delivery* is one attempt to send it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

MessageForm = Literal["text", "blocks", "payload"]
ContextPart = Literal["logs", "events", "owners"]
CONTEXT_PARTS: tuple[ContextPart, ...] = ("logs", "events", "owners")
ALL_FORMS: frozenset[MessageForm] = frozenset({"text", "blocks", "payload"})


@dataclass(frozen=True, slots=True)
class Message:
    """A rendered message, in the forms the sinks need."""

    text: str  # plain text: Slack's fallback, the console line
    blocks: tuple[dict[str, Any], ...] = ()  # Slack Block Kit
    payload: dict[str, Any] = field(default_factory=dict)  # the webhook JSON body


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
    message: Message
    observed_at: float  # time.time() when the change was observed
    catch_up: bool = False  # produced by comparing with state from before a restart
    thread_key: str | None = None  # Slack threading: same key, same thread
    resolves: bool = False  # the end of what was told (send_resolved)
    correlation_id: str = ""  # the transition's, so logs tie match and delivery together
    context: ContextRequest | None = None  # context to attach before sending (``enrich:``)
    fingerprint: str = ""  # rule + object: the same in a firing and its resolution
    closes_thread: bool = False  # a resolution that replaces its thread's first message
