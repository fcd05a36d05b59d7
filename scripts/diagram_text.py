"""Read a diagram's text description (docs/diagrams/*.txt) into boxes, rows and arrows.

The format, one statement a line (``#`` starts a comment line)::

    title: The words an image reader is given (the SVG's title and the alt text)
    box ID [external] [narrow]: Optional title
      a body line
      term | a body line with a bold term (one word) in its own column
           | a continuation of the term's text
      a line | with a bar after more than one word is plain text
    arrow ID[, ID...] -> ID[, ID...][: label]
      more label lines
    row ID ID ...

Boxes stand one per row, top to bottom, in the order they are declared; a ``row``
puts boxes side by side, where the first of them is declared. An arrow joins a row
to the next one down. ``external`` draws a box that is not ours (dashed);
``narrow`` keeps a lone box at its own width instead of the picture's. Errors name
the file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

STYLES = frozenset({"external", "narrow"})
_ID = r"[a-z][a-z0-9_-]*"
_BOX = re.compile(rf"^box (?P<id>{_ID})(?P<styles>(?: [a-z]+)*):(?P<title>.*)$")
_IDS = rf"{_ID}(?:, {_ID})*"
_ARROW = re.compile(rf"^arrow (?P<tails>{_IDS}) -> (?P<heads>{_IDS})(?::(?P<label>.*))?$")
_ROW = re.compile(rf"^row (?P<ids>{_ID}(?: {_ID})+)$")
_TITLE = re.compile(r"^title: (?P<title>\S.*)$")
_TERM = re.compile(r"^(?P<term>\S*)\s*\| (?P<text>.*)$")  # a term is one word; none: a continuation
INDENT = "  "


class DiagramError(ValueError):
    """A description that cannot be drawn; the message names the file and line."""


@dataclass(frozen=True)
class Line:
    term: str | None  # None: the line has no term column (it spans the box)
    text: str


@dataclass
class Box:
    id: str
    title: str
    styles: frozenset[str]
    lines: list[Line] = field(default_factory=list)


@dataclass
class Arrow:
    tails: tuple[str, ...]
    heads: tuple[str, ...]
    label: list[str]
    where: str


@dataclass
class Diagram:
    title: str = ""
    boxes: dict[str, Box] = field(default_factory=dict)
    arrows: list[Arrow] = field(default_factory=list)
    groups: list[tuple[str, ...]] = field(default_factory=list)

    def rows(self) -> list[list[Box]]:
        """The boxes row by row, top to bottom."""
        placed: set[str] = set()
        rows = []
        for box_id in self.boxes:
            if box_id in placed:
                continue
            group = next((g for g in self.groups if box_id in g), (box_id,))
            rows.append([self.boxes[member] for member in group])
            placed.update(group)
        return rows


def parse(text: str, name: str) -> Diagram:
    diagram = Diagram()
    continuing: Box | Arrow | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        where = f"{name}:{number}"
        if not raw.strip() or raw.startswith("#"):
            continuing = None
            continue
        if raw.startswith(INDENT):
            _continue(continuing, raw[len(INDENT) :], where)
            continue
        continuing = _statement(diagram, raw, where)
    _check(diagram, name)
    return diagram


def _statement(diagram: Diagram, line: str, where: str) -> Box | Arrow | None:
    if match := _TITLE.match(line):
        diagram.title = match["title"].strip()
        return None
    if match := _BOX.match(line):
        return _box(diagram, match, where)
    if match := _ARROW.match(line):
        first = (match["label"] or "").strip()
        label = [first] if first else []
        arrow = Arrow(_ids(match["tails"]), _ids(match["heads"]), label, where)
        diagram.arrows.append(arrow)
        return arrow
    if match := _ROW.match(line):
        diagram.groups.append(tuple(match["ids"].split()))
        return None
    raise DiagramError(f"{where}: expected title:, box, arrow or row, got {line!r}")


def _box(diagram: Diagram, match: re.Match[str], where: str) -> Box:
    styles = frozenset(match["styles"].split())
    if unknown := styles - STYLES:
        raise DiagramError(f"{where}: unknown box style {sorted(unknown)[0]!r}")
    if match["id"] in diagram.boxes:
        raise DiagramError(f"{where}: box {match['id']!r} is declared twice")
    box = Box(match["id"], match["title"].strip(), styles)
    diagram.boxes[box.id] = box
    return box


def _continue(target: Box | Arrow | None, line: str, where: str) -> None:
    if isinstance(target, Arrow):
        target.label.append(line.strip())
    elif isinstance(target, Box):
        if match := _TERM.match(line):
            target.lines.append(Line(match["term"], match["text"].strip()))
        else:
            target.lines.append(Line(None, line.rstrip()))
    else:
        raise DiagramError(f"{where}: an indented line belongs under a box or an arrow")


def _ids(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(","))


def _check(diagram: Diagram, name: str) -> None:
    if not diagram.title:
        raise DiagramError(f"{name}: no title: line (the picture's alt text)")
    for group in diagram.groups:
        _known(diagram, group, f"{name}: row")
    row_of = {box.id: index for index, row in enumerate(diagram.rows()) for box in row}
    for arrow in diagram.arrows:
        _known(diagram, arrow.tails + arrow.heads, arrow.where)
        if len(arrow.tails) > 1 and len(arrow.heads) > 1:
            raise DiagramError(f"{arrow.where}: an arrow goes from many or to many, not both")
        rows = {row_of[head] - row_of[tail] for tail in arrow.tails for head in arrow.heads}
        if rows != {1}:
            raise DiagramError(f"{arrow.where}: an arrow joins a row to the next one down")


def _known(diagram: Diagram, ids: tuple[str, ...], where: str) -> None:
    for box_id in ids:
        if box_id not in diagram.boxes:
            raise DiagramError(f"{where}: no box {box_id!r}")
