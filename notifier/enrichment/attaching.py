"""Context shown in each form of a message: text lines, Slack blocks, webhook JSON fields;
and in the facts (``context``) for receivers that render their own body.

- ``text`` (the console, Slack's fallback): indented lines under the message;
- ``blocks`` (Slack): owners and problems as context lines, events as a list,
  each log as a code block cut to Slack's section limit keeping its end;
- ``payload`` (webhook): a ``context`` object with the same facts as fields
  (``kube_notifier_context`` when the template already has a ``context`` key).
Object text was made safe when read; here it is escaped for Slack's markup.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from notifier.enrichment.context import ContainerLog, Context
from notifier.enrichment.telling import change_blocks, change_fields, change_text
from notifier.notifications import Message
from notifier.text import mrkdwn_escaped

_SECTION_TEXT = 2900  # under Slack's 3000, for the heading and fences
_FENCE = "```"
_FENCE_STANDIN = "'''"  # a log cannot close our code block early


def with_context(message: Message, context: Context) -> Message:
    if not context:
        return message
    return Message(
        text=f"{message.text}\n{_text(context)}",
        blocks=(*message.blocks, *_blocks(context)) if message.blocks else (),
        payload=_payload(message.payload, context) if message.payload else {},
    )


def _log_title(log: ContainerLog) -> str:
    which = "previous instance" if log.previous else "current instance"
    cut = ", cut" if log.truncated else ""
    return f"log of {log.container} ({which}, last {len(log.lines)} lines{cut})"


def _text(context: Context) -> str:
    lines: list[str] = []
    if context.owners:
        lines.append(f"  owners: {' -> '.join(context.owners)}")
    if context.events:
        lines.append("  warning events (newest first):")
        lines += [f"    {e.reason} x{e.count} ({e.last_seen}): {e.message}" for e in context.events]
    for log in context.logs:
        lines.append(f"  {_log_title(log)}:")
        lines += [f"    {line}" for line in log.lines] or ["    (empty)"]
    lines += [f"  context: {problem}" for problem in context.problems]
    lines += change_text(context.changes) if context.changes else []
    return "\n".join(lines)


def _blocks(context: Context) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = change_blocks(context.changes) if context.changes else []
    if context.owners:
        owners = " → ".join(mrkdwn_escaped(list(context.owners)))
        blocks.append(_context_line(f"*Owners:* {owners}"))
    if context.events:
        items = [
            f"• `{mrkdwn_escaped(e.reason)}` x{e.count}: {mrkdwn_escaped(e.message)}"
            for e in context.events
        ]
        blocks.append(_section(_keep_end("*Warning events*", "\n".join(items))))
    for log in context.logs:
        shown = "\n".join(mrkdwn_escaped(list(log.lines)))
        body = shown.replace(_FENCE, _FENCE_STANDIN) or "(empty)"
        blocks.append(
            _section(_keep_end(f"*{mrkdwn_escaped(_log_title(log))}*", body, fenced=True))
        )
    for problem in context.problems:
        blocks.append(_context_line(f":warning: {mrkdwn_escaped(problem)}"))
    return blocks


def _keep_end(title: str, body: str, *, fenced: bool = False) -> str:
    """``title`` over ``body``, dropping the body's oldest lines to fit one section."""
    room = _SECTION_TEXT - len(title)
    if len(body) > room:
        body = "…" + body[len(body) - room + 1 :]
    return f"{title}\n{_FENCE}{body}{_FENCE}" if fenced else f"{title}\n{body}"


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def _context_line(text: str) -> dict[str, Any]:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": text[:_SECTION_TEXT]}]}


def _payload(payload: dict[str, Any], context: Context) -> dict[str, Any]:
    key = "kube_notifier_context" if "context" in payload else "context"
    return {**payload, key: context_fields(context)}


def context_fields(context: Context) -> dict[str, Any]:
    """The context as plain fields: a webhook payload's ``context``, the facts' ``context``."""
    return {
        "owners": list(context.owners),
        "events": [dataclasses.asdict(event) for event in context.events],
        "logs": [{**dataclasses.asdict(log), "lines": list(log.lines)} for log in context.logs],
        "problems": list(context.problems),
        "fetched_ms": context.fetched_ms,
        **({"changes": change_fields(context.changes)} if context.changes else {}),
    }
