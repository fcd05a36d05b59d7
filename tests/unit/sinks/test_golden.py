"""Every receiver's whole body for fixed facts, byte for byte against tests/golden/.

A failure shows the diff a reviewer reads; ``python -m tests.golden.rewrite``
writes the files again when the change is meant (read each changed file).
"""

from __future__ import annotations

import difflib

import pytest

from tests.golden.receivers import path_of, receivers, render
from tests.golden.scenarios import SCENARIOS

CASES = [(receiver, scenario) for receiver in receivers() for scenario in SCENARIOS]
# Where a receiver shows text a line at a time (the golden file shows each on its own line).
TEXT_RECEIVERS = ("alertmanager", "email", "telegram", "mattermost", "googlechat", "discord",
                  "msteams", "pagerduty", "opsgenie")  # fmt: skip


@pytest.mark.parametrize(("receiver", "scenario"), CASES)
def test_the_body_is_the_golden_one(receiver: str, scenario: str) -> None:
    path = path_of(receiver, scenario)
    assert path.exists(), f"no golden file {path}: run python -m tests.golden.rewrite"
    expected, body = path.read_text(encoding="utf-8"), render(receiver, scenario)
    diff = difflib.unified_diff(
        expected.splitlines(keepends=True), body.splitlines(keepends=True),
        fromfile=f"golden/{receiver}/{scenario}.txt", tofile="rendered now",
    )  # fmt: skip
    assert body == expected, "".join(diff)


@pytest.mark.parametrize("receiver", TEXT_RECEIVERS)
def test_text_keeps_its_line_breaks(receiver: str) -> None:
    """Each detail is a line of its own: none runs into the next (Alertmanager's did)."""
    details = ("Reason: ", "Container: ", "Owner: ", "Age: ")
    shown = render(receiver, "crash-loop").splitlines()
    for detail in details:
        assert any(detail in line for line in shown), f"{detail!r} is not shown"
    assert all(sum(detail in line for detail in details) <= 1 for line in shown)


@pytest.mark.parametrize(("receiver", "scenario"), [c for c in CASES if c[1] != "hostile"])
def test_no_line_of_a_text_repeats(receiver: str, scenario: str) -> None:
    """Within each text a person reads (a mail's part, an annotation, a message's text), no
    line is said twice (the email's text part said the transition twice)."""
    for text in _texts(render(receiver, scenario)):
        said = [line for line in text if line.strip() not in ("", '"\\n"')]
        assert len(said) == len(set(said)), text


def _texts(body: str) -> list[list[str]]:
    """The texts of a body: each mail part or console output, or each JSON string value
    shown a line at a time (a piece ending in ``\\n"`` continues on the next line)."""
    if not body.startswith(("{", "[")):
        return [part.splitlines() for part in body.split("\n--- text/")]
    texts: list[list[str]] = []
    going = False
    for line in body.splitlines():
        piece = line.strip().removesuffix(",")
        value = piece.split('": ', 1)[1] if not going and '": "' in piece else piece
        if going:
            texts[-1].append(value)
        elif value.startswith('"'):
            texts.append([value])
        going = value.endswith('\\n"')
    return texts
