"""Turning a compiled template and a context into a ``Message``.

A part that fails to render (a sandbox violation, a value that is not
JSON, a missing attribute on an odd object) is rendered with the built-in
template's part instead, so a notification is still sent; the caller
learns which parts failed and counts them. If even the built-in part fails,
the part is left empty (text falls back to the context's ``summary``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import msgspec

from notifier.notifications import ALL_FORMS, Message, MessageForm
from notifier.templating.compiling import CompiledTemplate, Render
from notifier.templating.sandbox import render_budget

_BLANK_LINES = re.compile(r"\n{3,}")
_T = TypeVar("_T")


def render_message(
    template: CompiledTemplate,
    fallback: CompiledTemplate,
    context: Mapping[str, Any],
    forms: frozenset[MessageForm] = ALL_FORMS,
) -> tuple[Message, list[str]]:
    """The message, and the names of the parts that fell back to ``fallback``.

    Only ``forms`` are rendered (text always): a webhook has no use for
    Slack blocks, and rendering them would cost more than the rest.
    """
    failed: list[str] = []
    summary = str(context.get("summary", ""))

    def part(name: str, render: Render, spare: Render, shape: Callable[[Any], _T], empty: _T) -> _T:
        for candidate in (render, spare):
            try:
                with render_budget():
                    return shape(candidate(context))
            except Exception:
                failed.append(name)
        return empty

    text = part("text", template.text, fallback.text, _as_text, summary)
    no_blocks: tuple[dict[str, Any], ...] = ()
    no_payload: dict[str, Any] = {}
    blocks, payload = no_blocks, no_payload
    if "blocks" in forms:
        blocks = part("blocks", template.blocks, fallback.blocks, _as_blocks, no_blocks)
    if "payload" in forms:
        payload = part("payload", template.payload, fallback.payload, _as_payload, no_payload)
    return Message(text=text, blocks=blocks, payload=payload), sorted(set(failed))


def _as_text(value: Any) -> str:
    lines = (line.rstrip() for line in str(value).strip().splitlines())
    return _BLANK_LINES.sub("\n\n", "\n".join(lines))


def _as_blocks(value: Any) -> tuple[dict[str, Any], ...]:
    blocks = msgspec.to_builtins(value)
    if not isinstance(blocks, list) or not all(isinstance(block, dict) for block in blocks):
        raise TypeError("blocks must render to a list of mappings")
    return tuple(blocks)


def _as_payload(value: Any) -> dict[str, Any]:
    payload = msgspec.to_builtins(value)
    if not isinstance(payload, dict):
        raise TypeError("payload must render to a mapping")
    return payload
