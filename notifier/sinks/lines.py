"""The facts as lines of plain text: what the text receivers show, each in its own frame.

The console, email's text part, Alertmanager's description and the chat
receivers say the same things: the headline (the facts' summary), the
details (``Reason: ...``), a digest's members, the enriched context
(owners, Warning Events, the last log lines, what could not be fetched) and
a footer (rule, severity, when). Each line is object text made safe to show
(``without_controls``); a value is one line (its own line breaks become
spaces), a log keeps its lines. Facts of any shape are taken: a missing or
odd fact says nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from notifier.notifications import Facts
from notifier.text import without_controls

_ONE_LINE = re.compile(r"[^\s]+(?: [^\s]+)*")  # no line breaks, tabs or runs of spaces
# One line already safe: no spacing but single spaces, and none of ``without_controls``'s
# characters (ANSI escapes start with one), so one test answers for most values.
NOT_SHOWN = r"\s\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069"  # a regex class's inside
_SAFE_LINE = re.compile(f"[^{NOT_SHOWN}]+(?: [^{NOT_SHOWN}]+)*")
_SEQUENCES = (list, tuple)
_CHANGE_LINE = 1000  # characters of one line of what changed (enrichment bounds its parts)


def one_line(value: Any) -> str:
    """``value`` as one line of safe text."""
    text = value if isinstance(value, str) else str(value)
    if _SAFE_LINE.fullmatch(text):
        return text
    text = without_controls(text)
    return text if _ONE_LINE.fullmatch(text) else " ".join(text.split())


def headline(facts: Facts) -> str:
    return one_line(facts.get("summary", ""))


def detail_lines(facts: Facts) -> list[str]:
    return [f"{one_line(label)}: {one_line(value)}" for label, value in _pairs(facts)]


def member_lines(facts: Facts) -> list[str]:
    """A digest's members, one line each, and how many more there were."""
    members = [m for m in _list(facts.get("members")) if isinstance(m, dict)]
    lines = [f"- {member_text(member)}" for member in members]
    omitted = facts.get("omitted")
    if isinstance(omitted, int) and omitted > 0:
        lines.append(f"… and {omitted} more")
    return lines


def member_text(member: Facts) -> str:
    reason = one_line(member.get("reason") or "")
    text = f"{one_line(member.get('kind', ''))} {one_line(member.get('key', ''))}: "
    text += one_line(member.get("transition", ""))
    return f"{text} ({reason})" if reason else text


def context_lines(facts: Facts, *, log_lines: int = 20, indent: str = "  ") -> list[str]:
    """The enriched context: owners, Warning Events, the logs' last ``log_lines`` lines (none:
    0), what could not be fetched."""
    context = facts.get("context")
    if not isinstance(context, dict):
        return []
    lines = change_lines(context, indent)
    owners = [one_line(owner) for owner in _list(context.get("owners"))]
    if owners:
        lines.append(f"Owners: {' -> '.join(owners)}")
    events = [event for event in _list(context.get("events")) if isinstance(event, dict)]
    if events:
        lines.append("Warning events (newest first):")
        lines += [f"{indent}{event_text(event)}" for event in events]
    for log in _list(context.get("logs")) if log_lines else ():
        if isinstance(log, dict):
            lines.append(f"{log_title(log)}:")
            shown = [
                part
                for line in _list(log.get("lines"))
                for part in without_controls(str(line)).splitlines() or [""]
            ]
            lines += [f"{indent}{line}" for line in shown[-log_lines:]] or [f"{indent}(empty)"]
    lines += [f"Not fetched: {one_line(problem)}" for problem in _list(context.get("problems"))]
    return lines


def change_lines(context: Facts, indent: str = "  ") -> list[str]:
    """``enrich: [changes]``: the likely cause, then what was found, a line each."""
    found = context.get("changes")
    if not isinstance(found, dict):
        return []
    said = [one_line(found.get("likely_cause", "")), *map(one_line, _list(found.get("lines")))]
    cut = [line if len(line) <= _CHANGE_LINE else line[: _CHANGE_LINE - 1] + "…" for line in said]
    return [f"Likely cause: {cut[0]}", *(f"{indent}{line}" for line in cut[1:])]


def event_text(event: Facts) -> str:
    seen = one_line(event.get("last_seen", ""))
    when = f" ({seen})" if seen else ""
    reason, message = one_line(event.get("reason", "")), one_line(event.get("message", ""))
    return f"{reason} x{event.get('count', 1)}{when}: {message}"


def log_title(log: Facts) -> str:
    which = "previous instance" if log.get("previous") else "current instance"
    cut = ", cut" if log.get("truncated") else ""
    count = len(_list(log.get("lines")))
    return f"Log of {one_line(log.get('container', '?'))} ({which}, last {count} lines{cut})"


def footer(facts: Facts) -> str:
    parts = [f"rule {one_line(facts.get('rule', ''))}", one_line(facts.get("severity", ""))]
    parts.append(one_line(facts.get("observed_at") or ""))
    return " · ".join(part for part in parts if part)


def body_lines(facts: Facts, *, log_lines: int = 20) -> list[str]:
    """Everything under the headline: details, members, context, then a blank and the footer."""
    lines = [*detail_lines(facts), *member_lines(facts)]
    context = context_lines(facts, log_lines=log_lines)
    lines += ["", *context] if context and lines else context
    return [*lines, "", footer(facts)] if lines else [footer(facts)]


def _pairs(facts: Facts) -> Iterable[tuple[Any, Any]]:
    for pair in _list(facts.get("details")):
        if isinstance(pair, _SEQUENCES) and len(pair) == 2 and pair[1] not in ("", None):
            yield pair[0], pair[1]


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, _SEQUENCES) else []
