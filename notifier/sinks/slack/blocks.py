"""Slack's message from the facts: Block Kit and the plain-text fallback.

One transition: a header (kind and key), the transition in bold, the
details as section fields, the enriched context (owners and problems as
context lines, Warning Events as a list, each log as a code block keeping
its end), and a context line (rule, event, severity, when). A digest: a
header (its summary), its members as a list, and a context line (rule,
group, how many). Object text is escaped for Slack's markup
(``mrkdwn_escaped``); the markup written here is not. A sink's
``template:`` may replace ``text`` or ``blocks`` (``mrkdwn_fields`` turns
details into section fields there).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from notifier.notifications import Facts
from notifier.sinks import lines
from notifier.sinks.rendering import Part, as_text
from notifier.text import without_controls

Block = dict[str, Any]

_SECTION_TEXT = 2900  # under Slack's 3000, for the heading and fences
_FIELDS = 10  # as Slack allows in one section
_FENCE = "```"
_FENCE_STANDIN = "'''"  # a log cannot close our code block early
# One line of safe text with nothing Slack escapes: shown as it is (most values).
_PLAIN = re.compile(f"[^&<>{lines.NOT_SHOWN}]+(?: [^&<>{lines.NOT_SHOWN}]+)*")
_SEQUENCES = (list, tuple)


def mrkdwn_escaped(value: Any) -> Any:
    """Object text shown as itself in Slack: control characters out, ``&``, ``<``, ``>``
    escaped as Slack asks, through lists and mappings alike (a template's ``{{ }}`` output;
    never the markup written around it)."""
    if isinstance(value, str):
        value = without_controls(value)
        if "&" in value or "<" in value or ">" in value:  # str.translate is 10x slower
            return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return value
    if isinstance(value, _SEQUENCES):
        return [mrkdwn_escaped(item) for item in value]
    if isinstance(value, dict):
        return {key: mrkdwn_escaped(item) for key, item in value.items()}
    return value


def fallback_text(facts: Facts) -> str:
    """The notification's text (what a phone shows), plain: the sink escapes it."""
    return "\n".join(
        [lines.headline(facts), *lines.detail_lines(facts), *lines.member_lines(facts)]
    )


def blocks_of(facts: Facts) -> list[Block]:
    if isinstance(facts.get("members"), list):
        return _digest(facts)
    return [
        _header(f"{_escaped(facts.get('kind', ''))} {_escaped(facts.get('key', ''))}"),
        _section(f"*{_escaped(facts.get('transition', ''))}*{_in_cluster(facts)}"),
        *_fields(facts),
        *context_blocks(facts.get("context")),
        _context_line(" · ".join(_about(facts))),
    ]


def mrkdwn_fields(details: list[list[str]]) -> list[Block]:
    """``details`` pairs as section fields (at most ten, as Slack allows)."""
    shown = details[:_FIELDS]
    return [{"type": "mrkdwn", "text": f"*{label}*\n{value}"[:2000]} for label, value in shown]


def _digest(facts: Facts) -> list[Block]:
    members = [f"• {_member(m)}" for m in facts["members"] if isinstance(m, dict)]
    omitted = facts.get("omitted")
    if isinstance(omitted, int) and omitted > 0:
        members.append(f"… and {omitted} more")
    about = [f"rule `{_escaped(facts.get('rule', ''))}`"]
    if facts.get("group_text"):
        about.append(_escaped(facts["group_text"]))
    about.append(f"{facts.get('count', len(members))} in total")
    return [
        _header(_escaped(facts.get("summary", ""))),
        _section(_cut_end("\n".join(members))),
        _context_line(" · ".join(about)),
    ]


def _member(member: Facts) -> str:
    text = f"`{_escaped(member.get('key', ''))}` {_escaped(member.get('transition', ''))}"
    reason = member.get("reason")
    return f"{text} ({_escaped(reason)})" if reason else text


def _about(facts: Facts) -> list[str]:
    about = [f"rule `{_escaped(facts.get('rule', ''))}`"]
    about += [
        _escaped(facts[name]) for name in ("event", "severity", "observed_at") if facts.get(name)
    ]
    return about


def _in_cluster(facts: Facts) -> str:
    cluster = facts.get("cluster")
    return f" in `{_escaped(cluster)}`" if cluster else ""


def _fields(facts: Facts) -> list[Block]:
    pairs = [[_escaped(label), _escaped(value)] for label, value in _details(facts)]
    return [{"type": "section", "fields": mrkdwn_fields(pairs)}] if pairs else []


def _details(facts: Facts) -> list[tuple[str, str]]:
    found = facts.get("details")
    if not isinstance(found, list):
        return []
    return [(p[0], p[1]) for p in found if isinstance(p, _SEQUENCES) and len(p) == 2 and p[1]]


def context_blocks(context: Any) -> list[Block]:
    """The enriched context as blocks: the likely cause and what was found, owners, Warning
    Events, logs, what was not fetched."""
    if not isinstance(context, dict):
        return []
    blocks = _change_blocks(context)
    owners = [_escaped(owner) for owner in context.get("owners") or ()]
    if owners:
        blocks.append(_context_line(f"*Owners:* {' → '.join(owners)}"))
    events = [event for event in context.get("events") or () if isinstance(event, dict)]
    if events:
        items = [f"• {_escaped(lines.event_text(event))}" for event in events]
        blocks.append(_section(_cut_end("\n".join(items), "*Warning events*")))
    for log in context.get("logs") or ():
        if isinstance(log, dict):
            shown = "\n".join(_escaped(str(line)) for line in log.get("lines") or ())
            body = shown.replace(_FENCE, _FENCE_STANDIN) or "(empty)"
            blocks.append(_section(_cut_end(body, f"*{_escaped(lines.log_title(log))}*", True)))
    for problem in context.get("problems") or ():
        blocks.append(_context_line(f":warning: Not fetched: {_escaped(problem)}"))
    return blocks


def _change_blocks(context: Facts) -> list[Block]:
    """``enrich: [changes]``: a context line with the likely cause, one with what was found."""
    said = lines.change_lines(context)
    if not said:
        return []
    cause, found = said[0].removeprefix("Likely cause: "), said[1:]
    blocks = [_context_line(f"*Likely cause:* {_escaped(cause)}")]
    if found:
        blocks.append(_context_line("\n".join(_escaped(line) for line in found)))
    return blocks


def _cut_end(body: str, title: str = "", fenced: bool = False) -> str:
    """``title`` over ``body``, dropping the body's oldest lines to fit one section."""
    room = _SECTION_TEXT - len(title) - (2 * len(_FENCE) if fenced else 0)
    if len(body) > room:
        body = "…" + body[len(body) - room + 1 :]
    body = f"{_FENCE}{body}{_FENCE}" if fenced else body
    return f"{title}\n{body}" if title else body


def _escaped(value: Any) -> str:
    """``value`` as one line of Slack text, escaped (``one_line`` took the controls out)."""
    if isinstance(value, str) and _PLAIN.fullmatch(value):
        return value
    text = lines.one_line(value)
    if "&" in text or "<" in text or ">" in text:
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text


def _header(text: str) -> Block:
    return {"type": "header", "text": {"type": "plain_text", "text": _cut(text, 150)}}


def _section(text: str) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def _context_line(text: str) -> Block:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": _cut(text, _SECTION_TEXT)}]}


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _as_blocks(value: Any) -> list[Block]:
    value = msgspec.to_builtins(value)
    if not isinstance(value, list) or not all(isinstance(block, dict) for block in value):
        raise TypeError("blocks must render to a list of mappings")
    return value


PARTS = {
    "text": Part(fallback_text, fit=as_text),
    "blocks": Part(
        blocks_of, shaped=True, escape=mrkdwn_escaped, filters={"mrkdwn_fields": mrkdwn_fields},
        fit=_as_blocks,
    ),
}  # fmt: skip
