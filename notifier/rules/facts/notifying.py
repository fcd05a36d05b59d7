"""Building ``Notification`` objects: stable ids, ordering keys, one per sink.

The id is the idempotency key delivery uses: the same rule, sink, object
(uid and resourceVersion) and transition always give the same id, so a
retry, a replay after restart or a second replica sends nothing twice.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from notifier.notifications import ContextRequest, Facts, Notification
from notifier.origin import Origin
from notifier.transitions.model import Transition


def digest_id(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


def signature(transition: Transition) -> str:
    """The transition's identity regardless of object: event and what it reached."""
    return f"{transition.event}:{','.join(sorted(transition.reached))}"


def object_identity(transition: Transition) -> str:
    meta = transition.obj.metadata
    return meta.uid or f"{transition.kind}/{transition.key}"


def dedup_key(rule: str, transition: Transition) -> str:
    """Same rule, same object, same transition: the unit of the dedup window."""
    return f"{rule}|{object_identity(transition)}|{signature(transition)}"


def ordering_key(transition: Transition) -> str:
    meta = transition.obj.metadata
    return f"{transition.kind}/{meta.namespace}/{meta.name}"


def fingerprint(rule: str, transition: Transition) -> str:
    """Stable for one rule and one object: what pairs a firing with its resolution."""
    return digest_id(rule, object_identity(transition))


def for_transition(
    rule: str,
    sinks: Sequence[str],
    transition: Transition,
    facts: Facts,
    now: float,
    *,
    status: str = "firing",
    thread_key: str | None = None,
    context: ContextRequest | None = None,
    closes_thread: bool = False,
) -> list[Notification]:
    version = transition.obj.metadata.resource_version
    identity, order = object_identity(transition), ordering_key(transition)
    return [
        Notification(
            id=digest_id(rule, sink, identity, version, signature(transition), *_variant(status)),
            sink=sink,
            rule=rule,
            ordering_key=order,
            facts=facts,
            observed_at=transition.observed_at or now,
            catch_up=transition.origin is Origin.CATCH_UP,
            correlation_id=transition.correlation_id,
            thread_key=thread_key,
            resolves=status == "resolved",
            context=context,
            fingerprint=str(facts.get("fingerprint") or fingerprint(rule, transition)),
            closes_thread=closes_thread and status == "resolved",
        )
        for sink in sinks
    ]


def for_digest(
    rule: str,
    sinks: Sequence[str],
    *,
    members: Sequence[Transition],
    group_text: str,
    facts: Facts,
    now: float,
    thread_key: str | None = None,
) -> list[Notification]:
    member_ids = sorted(f"{object_identity(t)}@{t.obj.metadata.resource_version}" for t in members)
    observed = min((t.observed_at for t in members if t.observed_at), default=now)
    catch_up = any(t.origin is Origin.CATCH_UP for t in members)
    return [
        Notification(
            id=digest_id(rule, sink, "digest", group_text, *member_ids),
            sink=sink,
            rule=rule,
            ordering_key=f"digest/{rule}/{group_text}",
            facts=facts,
            observed_at=observed,
            catch_up=catch_up,
            thread_key=thread_key,
        )
        for sink in sinks
    ]


def _variant(status: str) -> tuple[str, ...]:
    """A resolution's id differs from its firing's; a firing's is what it always was."""
    return () if status == "firing" else (status,)
