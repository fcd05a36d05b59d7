"""Fitting a rendered message into Slack's limits, saying what was cut.

Slack rejects (``invalid_blocks``, ``msg_too_long``) or silently cuts
messages past its limits, so we cut first and say so: at most 50 blocks
(the last one then says how many were left out), section text 3000
characters, section fields 10 of 2000 characters, header text 150, context
elements 10, and the plain-text fallback 4000 characters (Slack's advice;
its hard limit is 40,000). Cut text ends with ``… (N more characters)``.
Pure functions; input blocks are never mutated (a block that fits is returned
as it is, one that does not as a cut copy).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

MAX_BLOCKS = 50
MAX_TEXT = 4000
MAX_SECTION_TEXT = 3000
MAX_FIELDS = 10
MAX_FIELD_TEXT = 2000
MAX_HEADER_TEXT = 150
MAX_CONTEXT_ELEMENTS = 10

Block = dict[str, Any]


def truncate(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its start plus a count of the cut."""
    if len(text) <= limit:
        return text
    cut = len(text) - limit
    for _ in range(3):  # the marker's length depends on the count it shows; settles fast
        marker = f"… ({cut} more characters)"
        kept = max(0, limit - len(marker))
        cut = len(text) - kept
    return text[:kept] + f"… ({cut} more characters)"


def fit_text(text: str) -> str:
    return truncate(text, MAX_TEXT)


def fit_blocks(blocks: Sequence[Block]) -> list[Block]:
    fitted = [fit_block(block) for block in blocks]
    if len(fitted) <= MAX_BLOCKS:
        return fitted
    kept = fitted[: MAX_BLOCKS - 1]
    left_out = len(fitted) - len(kept)
    note = {"type": "mrkdwn", "text": f"… {left_out} more blocks not shown"}
    return [*kept, {"type": "context", "elements": [note]}]


def fit_block(block: Block) -> Block:
    kind = block.get("type")
    if kind == "section":
        return _fit_section(block)
    if kind == "header":
        return _with_text_limit(block, MAX_HEADER_TEXT)
    if kind == "context":
        return _fit_context(block)
    return block


def _fit_section(block: Block) -> Block:
    fitted = _with_text_limit(block, MAX_SECTION_TEXT)
    fields = block.get("fields")
    if isinstance(fields, list):
        cut = [_with_text_limit(f, MAX_FIELD_TEXT) for f in fields[:MAX_FIELDS]]
        if cut != fields:  # equal only when each field came back as itself: nothing was cut
            fitted = {**fitted, "fields": cut}
    return fitted


def _fit_context(block: Block) -> Block:
    elements = block.get("elements")
    if not isinstance(elements, list) or len(elements) <= MAX_CONTEXT_ELEMENTS:
        return block
    return {**block, "elements": elements[:MAX_CONTEXT_ELEMENTS]}


def _with_text_limit(obj: Block, limit: int) -> Block:
    """``obj`` if its text (``obj["text"]["text"]`` or ``obj["text"]``) fits, else a copy
    with the text cut."""
    text = obj.get("text")
    if isinstance(text, dict) and isinstance(text.get("text"), str):
        if len(text["text"]) <= limit:
            return obj
        return {**obj, "text": {**text, "text": truncate(text["text"], limit)}}
    if isinstance(text, str) and len(text) > limit:
        return {**obj, "text": truncate(text, limit)}
    return obj
