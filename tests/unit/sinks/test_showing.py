"""A JSON body shown to a person: the JSON itself, multi-line text a line at a time."""

from __future__ import annotations

import json
import re
from typing import Any

from notifier.sinks.showing import shown


def unfolded(text: str) -> Any:
    """The JSON a shown body is: each piece ending in ``\\n"`` joined to the next."""
    return json.loads(re.sub(r'\\n"\n *"', r"\\n", text))


BODY = {
    "summary": "web crashed",
    "description": "Reason: OOMKilled\nAge: 5m\n",
    "labels": {"a": "b"},
    "items": [{"text": "one\ntwo"}, 3, None, True],
    "empty": {},
    "none": [],
}


def test_a_shown_body_is_the_json_with_its_text_a_line_at_a_time() -> None:
    text = shown(BODY)
    assert unfolded(text) == BODY
    assert '  "description": "Reason: OOMKilled\\n"\n                 "Age: 5m\\n"' in text


def test_characters_that_hide_or_reorder_text_are_shown_escaped() -> None:
    text = shown({"name": "evil\u202egnp.exe\u200b\x07"})
    assert text == '{\n  "name": "evil\\u202egnp.exe\\u200b\\u0007"\n}'
    assert unfolded(text) == {"name": "evil\u202egnp.exe\u200b\x07"}
