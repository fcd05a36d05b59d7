"""The docs' pictures are drawn from text kept in the repo, and cannot drift from it (issue #27)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from scripts.diagram_svg import render
from scripts.diagram_text import DiagramError, parse
from scripts.diagrams import IMAGES, names, pages, shown, svg

SVG = "{http://www.w3.org/2000/svg}"


def test_every_svg_is_drawn_from_its_description() -> None:
    assert names() == ["data-flow", "delivery", "fleet"]
    for name in names():
        drawn = (IMAGES / f"{name}.svg").read_text(encoding="utf-8")
        assert drawn == svg(name), f"{name}.svg is stale: python -m scripts.diagrams"


def test_every_page_shows_the_picture_and_its_description() -> None:
    assert shown() == set(names())
    for path, current in pages().items():
        text = path.read_text(encoding="utf-8")
        assert text == current, f"{path.name}'s diagram block is stale: python -m scripts.diagrams"


def test_the_data_flow_names_every_stage_in_order() -> None:
    root = ET.fromstring(svg("data-flow"))
    words = [element.text for element in root.iter(f"{SVG}text")]
    stages = ["notifier/source", "notifier/queue", "notifier/rules", "notifier/delivery"]
    assert [words.index(stage) for stage in stages] == sorted(words.index(s) for s in stages)
    arrows = [path for path in root.iter(f"{SVG}path") if path.get("class") == "arrow"]
    assert len(arrows) == 5


def test_a_term_is_one_word_before_a_bar() -> None:
    box = parse(
        "title: t\nbox a:\n  notifier/rules | pure\n                 | more\n  list | replay x\n"
        "  dead-letters list | replay\n",
        "d.txt",
    ).boxes["a"]
    assert [(line.term, line.text) for line in box.lines] == [
        ("notifier/rules", "pure"),
        ("", "more"),
        ("list", "replay x"),
        (None, "dead-letters list | replay"),
    ]


HOSTILE = """title: a <b>"quoted"</b> & 'odd' title
box a: <script>alert(1)</script>
  term&co | x < y > z\x07, and a line long enough for the label
arrow a -> b: ]]> <!-- not a comment -->
box b external narrow: b
"""


def test_text_is_escaped_and_the_svg_is_well_formed() -> None:
    drawn = render(parse(HOSTILE, "hostile.txt"))
    root = ET.fromstring(drawn)
    assert not list(root.iter(f"{SVG}script")) and not list(root.iter("script"))
    texts = [element.text for element in root.iter(f"{SVG}text")]
    assert (
        "<script>alert(1)</script>" in texts
        and "x < y > z, and a line long enough for the label" in texts
    )
    assert "]]> <!-- not a comment -->" in texts and "term&co" in texts
    assert root.get("aria-label") == """a <b>"quoted"</b> & 'odd' title"""


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("title: t\nbox a: A\narrow a -> c\n", "d.txt:3: no box 'c'"),
        ("title: t\nbox a: A\nbox b: B\nbox c: C\narrow a -> c\n", "d.txt:5: an arrow joins a row"),
        ("title: t\nbox a: A\nbox b: B\narrow b -> a\n", "d.txt:4: an arrow joins a row"),
        ("title: t\nbox a shiny: A\n", "d.txt:2: unknown box style 'shiny'"),
        ("title: t\nbox a: A\nbox a: B\n", "d.txt:3: box 'a' is declared twice"),
        ("title: t\n  stray\n", "d.txt:2: an indented line belongs under a box or an arrow"),
        ("title: t\nboxes a: A\n", "d.txt:2: expected title:, box, arrow or row"),
        ("box a: A\n", "d.txt: no title: line"),
        ("title: t\nbox a: A\nrow a z\n", "d.txt: row: no box 'z'"),
    ],
)
def test_a_description_that_cannot_be_drawn_is_refused_where_it_is_wrong(
    text: str, error: str
) -> None:
    with pytest.raises(DiagramError, match="^" + error.replace("(", r"\(")):
        parse(text, "d.txt")


def test_a_label_that_would_cross_an_arrow_is_refused() -> None:
    text = (
        "title: t\nbox a: A\nbox b: B\nbox c: C\nrow a b c\n"
        "arrow a, b, c -> d: a label far too long to pass between two arrows\n"
        "box d: D\n"
    )
    with pytest.raises(DiagramError, match=r"^d\.txt:6: the label reaches the next arrow"):
        render(parse(text, "d.txt"))
