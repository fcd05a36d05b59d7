"""A decision in words ("silenced by 3f2a…", "no rule matched"), what a sink made of what it
was told ("dead-lettered after 1 attempt: http_400"), times as people read them, and text
with its invisible format characters made visible."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import UTC, datetime

from markupsafe import Markup

from notifier.api.decision_log import DecisionRecord
from notifier.api.page.views import SendState, Told

Sent = Callable[[Told], SendState]

# Worst first: a notification told to several sinks is as far as its least lucky one.
_STATES = ("dead-lettered", "retrying", "queued", "unknown", "delivered")
_OUTCOMES = {"dead-lettered": "dead-lettered", "retrying": "retrying", "queued": "queued",
             "unknown": "handed on", "delivered": "sent"}  # fmt: skip

_REASONS = {
    "dedup": "deduplicated: the same change was told within the dedup window",
    "group": "grouped: folded into the rule's group digest",
    "drop_rule": "dropped by a drop rule",
    "startup": "quiet at start: the object was already so when the service started",
    "mute": "in the rule's mute window",
    "opt_out": "the object opts out (annotation)",
}


def outcome(record: DecisionRecord, sent: Sent) -> str:
    """One word for the list: sent (every sink took it), dead-lettered, retrying, queued,
    silenced, inhibited, grouped, ... or no rule matched."""
    if record.told:
        states = {sent(Told(sink, note_id)).state for note_id, _rule, sink in record.told}
        return _OUTCOMES[next(state for state in _STATES if state in states)]
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


def reasons(record: DecisionRecord, sent: Sent) -> list[str]:
    """Every reason, in words, for the detail line."""
    said = []
    for note_id, rule, sink in record.told:
        state = sent(Told(sink, note_id))
        said.append(f"rule {rule} to {sink}: {told(state)}")
        cause = f"likely cause: {state.cause}"
        said += [cause] if state.cause and cause not in said else []
    for rule, reason in record.suppressed:
        words = _REASONS.get(reason, reason)
        said.append(f"rule {rule}: {words}" if rule else words)
    if record.dropped_by:
        said.append(f"dropped by rule {record.dropped_by}")
    said.extend(f"rule {rule} is muted" for rule in record.muted)
    if not record.matched and not record.dropped_by and not record.muted:
        said.append("no rule matched this change")
    return said


def told(state: SendState) -> str:
    """What the sink made of it: "delivered", "retrying after attempt 2 failed: http_500",
    "delivered by a replay at ... (dead-lettered after 1 attempt: http_400: ...)"."""
    if state.replayed_at:
        return _replayed(state)
    if state.state == "delivered":
        return f"delivered ({_attempts(state)})" if state.attempts > 1 else "delivered"
    if state.state == "queued":
        return "queued, not sent yet"
    if state.state == "retrying":
        return f"retrying after attempt {state.attempts} failed: {state.detail}"
    if state.state == "dead-lettered":
        return f"dead-lettered after {_attempts(state)}: {state.detail}"
    return "handed on, not followed here (a standby, or past what delivery remembers)"


def _replayed(state: SendState) -> str:
    """A dead letter sent again: delivered by the replay, or failed again."""
    dead = f"dead-lettered after {_attempts(state)}: {state.detail}"
    at = when(state.replayed_at)
    if state.state == "delivered":
        return f"delivered by a replay at {at} ({dead})"
    return f"{dead}; a replay at {at} failed again: {state.replay_error}"


def _attempts(state: SendState) -> str:
    return f"{state.attempts} attempt{'' if state.attempts == 1 else 's'}"


_INVISIBLE = re.compile(
    "[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
    "\ufff9-\ufffb\U000e0001\U000e0020-\U000e007f]"
)


def visible(value: object) -> object:
    """Text with its invisible format characters (bidirectional overrides and isolates,
    directional marks, zero widths) shown as ``[U+202E]``, so none can reverse or hide
    what the page shows; other values as they are (Jinja2 ``finalize``)."""
    if not isinstance(value, str) or not _INVISIBLE.search(value):
        return value
    shown = _INVISIBLE.sub(lambda found: f"[U+{ord(found[0]):04X}]", value)
    return Markup(shown) if isinstance(value, Markup) else shown


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
