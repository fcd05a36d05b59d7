"""What a rule with ``enrich:`` asks delivery to fetch: a ``ContextRequest`` per transition.

Pure: it reads only the object as the rule saw it. Which containers' logs
tell the story is the kind's to say (``KindSpec.log_sources``); a deleted
object has no log left to read, so only its events and owners are asked for.
"""

from __future__ import annotations

from notifier.kinds.registry import spec_of
from notifier.notifications import ContextPart, ContextRequest
from notifier.objects import controller_of
from notifier.transitions.model import Transition


def context_request(
    parts: tuple[ContextPart, ...], transition: Transition
) -> ContextRequest | None:
    if not parts:
        return None
    obj = transition.obj
    meta = obj.metadata
    owner = controller_of(obj)
    wants_logs = "logs" in parts and transition.new is not None
    return ContextRequest(
        parts=parts,
        kind=str(transition.kind),
        namespace=meta.namespace,
        name=meta.name,
        uid=meta.uid,
        resource_version=meta.resource_version,
        logs=spec_of(obj).log_sources(obj) if wants_logs else (),
        owner=(owner.kind, owner.name) if owner is not None else None,
    )
