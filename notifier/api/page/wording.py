"""A decision in words ("silenced by 3f2a…", "no rule matched"), and times as people read them."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from notifier.api.decisions import DecisionRecord

_REASONS = {
    "dedup": "deduplicated: the same change was told within the dedup window",
    "group": "grouped: folded into the rule's group digest",
    "drop_rule": "dropped by a drop rule",
    "startup": "quiet at start: the object was already so when the service started",
    "mute": "in the rule's mute window",
    "opt_out": "the object opts out (annotation)",
}


def outcome(record: DecisionRecord) -> str:
    """One word for the list: sent, silenced, inhibited, grouped, ... or no rule matched."""
    if record.told:
        return "sent"
    for _rule, reason in record.suppressed:
        head = reason.split(" ", 1)[0]
        return {"silenced": "silenced", "inhibited": "inhibited", "dedup": "deduplicated",
                "group": "grouped", "startup": "quiet at start", "mute": "muted",
                "opt_out": "opted out", "drop_rule": "dropped",
                "incident:": "in its incident"}.get(head, head)  # fmt: skip
    if record.dropped_by:
        return "dropped"
    if record.muted:
        return "muted"
    return "no rule matched" if not record.matched else "nothing sent"


def reasons(record: DecisionRecord) -> list[str]:
    """Every reason, in words, for the detail line."""
    said = [f"sent by rule {rule} to {sink}" for _id, rule, sink in record.told]
    for rule, reason in record.suppressed:
        words = _REASONS.get(reason, reason)
        said.append(f"rule {rule}: {words}" if rule else words)
    if record.dropped_by:
        said.append(f"dropped by rule {record.dropped_by}")
    said.extend(f"rule {rule} is muted" for rule in record.muted)
    if not record.matched and not record.dropped_by and not record.muted:
        said.append("no rule matched this change")
    return said


def when(timestamp: float | None) -> str:
    if not timestamp:
        return ""
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def ago(timestamp: float | None, now: float | None = None) -> str:
    if not timestamp:
        return ""
    return seconds((now if now is not None else time.time()) - timestamp) + " ago"


def due_in(timestamp: float | None, now: float | None = None) -> str:
    """How long until ``timestamp`` ("in 58s"); "due now" once it has passed."""
    if not timestamp:
        return ""
    left = timestamp - (now if now is not None else time.time())
    return "in " + seconds(left) if left >= 1 else "due now"


def seconds(span: float) -> str:
    span = max(0, int(span))
    if span < 120:
        return f"{span}s"
    if span < 7200:
        return f"{span // 60}m"
    if span < 172800:
        return f"{span // 3600}h{span % 3600 // 60:02d}m"
    return f"{span // 86400}d"
