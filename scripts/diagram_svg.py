"""Draw a parsed diagram (scripts/diagram_text.py) as SVG: boxes in rows, labelled arrows.

Text is monospaced, so its width is known without a font: every line fits its box
whatever font the viewer picks from the list. All text is XML-escaped; the output
depends only on the description, so a test can compare it with the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from scripts.diagram_text import Arrow, Box, Diagram, DiagramError, Line

FONT = 12
CHAR = 7.3  # a monospaced advance at 12 px (DejaVu Sans Mono's is 7.22), rounded up
LINE = 17
PAD = 10
MARGIN = 16
COLUMN_GAP = 24
ROW_GAP = 30
SPINE = 60  # where an arrow between two boxes of the picture's width runs, from the left
_UNSAFE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
STYLE = (
    "text{font-family:'DejaVu Sans Mono',Menlo,Consolas,'Liberation Mono',monospace;"
    f"font-size:{FONT}px;fill:#1b1b1b}}"
    ".title,.term{font-weight:bold}.term{fill:#1d3557}.label{fill:#555}"
    ".box{fill:#eef3f9;stroke:#3d5a80;stroke-width:1.2}"
    ".external{fill:#fafafa;stroke:#777;stroke-dasharray:5 3}"
    ".arrow{stroke:#333;stroke-width:1.3;fill:none}"
)


@dataclass(frozen=True)
class Place:
    x: float
    y: float
    w: float
    h: float

    @property
    def centre(self) -> float:
        return self.x + self.w / 2


def render(diagram: Diagram) -> str:
    rows = diagram.rows()
    width = max(_row_width(row) for row in rows)
    places, height = _place(diagram, rows, width)
    parts = [_box(box, places[box.id]) for row in rows for box in row]
    parts += [_arrow(arrow, places, width + MARGIN) for arrow in diagram.arrows]
    return _document(diagram.title, width + 2 * MARGIN, height, parts)


def _text_width(text: str) -> float:
    return len(text) * CHAR


def _term_column(box: Box) -> float:
    terms = [line.term for line in box.lines if line.term]
    return _text_width(max(terms, key=len)) + 2 * CHAR if terms else 0.0


def _natural_width(box: Box) -> float:
    column = _term_column(box)
    lines = [_text_width(box.title)] + [
        (column if line.term is not None else 0) + _text_width(line.text) for line in box.lines
    ]
    return max(lines) + 2 * PAD


def _height(box: Box) -> float:
    return 2 * PAD + LINE * (len(box.lines) + (1 if box.title else 0)) + (4 if box.title else 0)


def _row_width(row: list[Box]) -> float:
    if len(row) == 1:
        return _natural_width(row[0])
    return len(row) * max(map(_natural_width, row)) + (len(row) - 1) * COLUMN_GAP


def _place(diagram: Diagram, rows: list[list[Box]], width: float) -> tuple[dict[str, Place], float]:
    gaps = _gaps(diagram, rows)
    places: dict[str, Place] = {}
    top = float(MARGIN)
    for index, row in enumerate(rows):
        height = max(map(_height, row))
        places.update(_place_row(row, top, height, width))
        top += height + (gaps[index] if index < len(gaps) else 0)
    return places, top + MARGIN


def _place_row(row: list[Box], top: float, height: float, width: float) -> dict[str, Place]:
    if len(row) == 1:
        own = _natural_width(row[0]) if "narrow" in row[0].styles else width
        return {row[0].id: Place(MARGIN, top, own, height)}
    own = max(map(_natural_width, row))
    slot = (width + COLUMN_GAP) / len(row)
    return {
        box.id: Place(MARGIN + k * slot + (slot - COLUMN_GAP - own) / 2, top, own, height)
        for k, box in enumerate(row)
    }


def _gaps(diagram: Diagram, rows: list[list[Box]]) -> list[float]:
    row_of = {box.id: index for index, row in enumerate(rows) for box in row}
    gaps = [float(ROW_GAP)] * (len(rows) - 1)
    for arrow in diagram.arrows:
        index = row_of[arrow.tails[0]]
        gaps[index] = max(gaps[index], LINE * len(arrow.label) + 2 * PAD)
    return gaps


def _x_between(upper: Place, lower: Place) -> tuple[float, float]:
    """Where an arrow leaves ``upper`` and enters ``lower``."""
    if upper.x == lower.x:  # both start at the left edge: the arrow runs down the spine
        x = upper.x + min(SPINE, upper.w / 2, lower.w / 2)
        return x, x
    narrow, wide = sorted((upper, lower), key=lambda place: place.w)
    if wide.x <= narrow.centre <= wide.x + wide.w:
        return narrow.centre, narrow.centre
    return upper.centre, lower.centre


def _arrow(arrow: Arrow, places: dict[str, Place], right: float) -> str:
    lines = []
    starts = []
    for tail in arrow.tails:
        for head in arrow.heads:
            upper, lower = places[tail], places[head]
            x1, x2 = _x_between(upper, lower)
            starts.append(min(x1, x2))
            lines.append(
                f'<path class="arrow" d="M{_n(x1)},{_n(upper.y + upper.h)} '
                f'L{_n(x2)},{_n(lower.y - 1.5)}" marker-end="url(#head)"/>'
            )
    first = places[arrow.tails[0]]
    x = min(starts) + 8
    limit = min([start for start in starts if start > x] + [right])
    return "\n".join(lines + _label(arrow, x, first.y + first.h + PAD, limit))


def _label(arrow: Arrow, x: float, top: float, limit: float) -> list[str]:
    """The label's lines right of its first arrow; one that would reach ``limit`` (the
    next arrow, or the picture's edge) is an error: break its lines."""
    if arrow.label and x + max(map(_text_width, arrow.label)) > limit - 4:
        reach = "the label reaches the next arrow or the picture's edge: break its lines"
        raise DiagramError(f"{arrow.where}: {reach}")
    return [_text(x, top + LINE * (k + 1) - 4, line, "label") for k, line in enumerate(arrow.label)]


def _box(box: Box, place: Place) -> str:
    style = "box external" if "external" in box.styles else "box"
    parts = [
        f'<rect class="{style}" x="{_n(place.x)}" y="{_n(place.y)}" '
        f'width="{_n(place.w)}" height="{_n(place.h)}" rx="6"/>'
    ]
    baseline = place.y + PAD + LINE - 4
    left = place.x + PAD
    if box.title:
        parts.append(_text(left, baseline, box.title, "title"))
        baseline += LINE + 4
    column = _term_column(box)
    for line in box.lines:
        parts += _line(line, left, column, baseline)
        baseline += LINE
    return "\n".join(parts)


def _line(line: Line, left: float, column: float, baseline: float) -> list[str]:
    if line.term is None:
        return [_text(left, baseline, line.text, "")]
    term = [_text(left, baseline, line.term, "term")] if line.term else []
    return [*term, _text(left + column, baseline, line.text, "")]


def _text(x: float, y: float, text: str, css: str) -> str:
    cls = f' class="{css}"' if css else ""
    safe = escape(_UNSAFE.sub("", text))
    return f'<text{cls} x="{_n(x)}" y="{_n(y)}">{safe}</text>'


def _document(title: str, width: float, height: float, parts: list[str]) -> str:
    safe_title = _UNSAFE.sub("", title)
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(width)}" height="{_n(height)}" '
        f'viewBox="0 0 {_n(width)} {_n(height)}" role="img" aria-label={quoteattr(safe_title)} '
        'xml:space="preserve">\n'
        f"<title>{escape(safe_title)}</title>\n"
        f"<style>{STYLE}</style>\n"
        '<defs><marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#333"/>'
        "</marker></defs>\n"
        '<rect width="100%" height="100%" fill="#ffffff"/>\n'
    )
    return head + "\n".join(parts) + "\n</svg>\n"


def _n(value: float) -> str:
    rounded = round(value, 1)
    return str(int(rounded)) if rounded == int(rounded) else str(rounded)
