from __future__ import annotations

import copy
from typing import Any

import pytest

from notifier.sinks.slack.limits import (
    MAX_BLOCKS,
    MAX_FIELD_TEXT,
    MAX_FIELDS,
    MAX_HEADER_TEXT,
    MAX_SECTION_TEXT,
    MAX_TEXT,
    fit_blocks,
    fit_text,
    truncate,
)


def section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


@pytest.mark.parametrize("length", [MAX_TEXT + 1, MAX_TEXT + 99, MAX_TEXT * 25])
def test_long_text_is_cut_to_the_limit_and_says_how_much_was_cut(length: int) -> None:
    fitted = fit_text("x" * length)

    assert len(fitted) == MAX_TEXT
    kept = fitted.index("…")
    assert fitted.endswith(f"… ({length - kept} more characters)")


def test_text_within_the_limit_is_unchanged() -> None:
    text = "y" * MAX_TEXT
    assert fit_text(text) is text


def test_truncate_keeps_the_start() -> None:
    assert truncate("abcdefghij" * 10, 40).startswith("abcdefghij")


def test_more_than_fifty_blocks_keep_forty_nine_and_a_note() -> None:
    blocks = [section(f"block {n}") for n in range(70)]

    fitted = fit_blocks(blocks)

    assert len(fitted) == MAX_BLOCKS
    assert fitted[:49] == blocks[:49]
    assert fitted[-1]["type"] == "context"
    assert fitted[-1]["elements"][0]["text"] == "… 21 more blocks not shown"


def test_fifty_blocks_are_kept_as_they_are() -> None:
    blocks = [section(str(n)) for n in range(MAX_BLOCKS)]
    assert fit_blocks(blocks) == blocks


def test_section_text_fields_and_header_are_cut_to_their_limits() -> None:
    blocks = [
        section("s" * (MAX_SECTION_TEXT + 10)),
        {
            "type": "section",
            "fields": [{"type": "mrkdwn", "text": "f" * (MAX_FIELD_TEXT + 1)}] * 12,
        },
        {"type": "header", "text": {"type": "plain_text", "text": "h" * 200}},
    ]
    original = copy.deepcopy(blocks)

    text_block, fields_block, header = fit_blocks(blocks)

    assert len(text_block["text"]["text"]) == MAX_SECTION_TEXT
    assert len(fields_block["fields"]) == MAX_FIELDS
    assert all(len(f["text"]) == MAX_FIELD_TEXT for f in fields_block["fields"])
    assert len(header["text"]["text"]) == MAX_HEADER_TEXT
    assert blocks == original, "the rendered message must not be changed in place"


def test_context_keeps_ten_elements_and_other_blocks_pass_through() -> None:
    context = {"type": "context", "elements": [{"type": "mrkdwn", "text": "e"}] * 14}
    divider = {"type": "divider"}

    fitted_context, fitted_divider = fit_blocks([context, divider])

    assert len(fitted_context["elements"]) == 10
    assert fitted_divider == divider
