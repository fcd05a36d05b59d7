"""Print a release's notes: its section of CHANGELOG.md (Keep a Changelog).

``python -m scripts.release_notes 1.2.0`` prints the text under ``## [1.2.0]``
(up to the next ``## `` heading, without link references) and exits 0; it exits
1 with a reason when the section is missing or empty. The release workflow
publishes what it prints, and runs it before anything is published.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

CHANGELOG = Path(__file__).resolve().parents[1] / "CHANGELOG.md"
_HEADING = re.compile(r"^## \[(?P<version>[^\]]+)\](?: - (?P<date>\d{4}-\d{2}-\d{2}))?\s*$")
_LINK_REFERENCE = re.compile(r"^\[[^\]]+\]: \S+")


class MissingNotesError(Exception):
    """The changelog has no notes for the version asked for."""


def versions(text: str) -> list[str]:
    """The versions with a section, in file order (``Unreleased`` included)."""
    return [m["version"] for line in text.splitlines() if (m := _HEADING.match(line))]


def notes(text: str, version: str) -> str:
    """The body of ``version``'s section, stripped; raises MissingNotesError."""
    body: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("## "):
            if body is not None:
                break
            heading = _HEADING.match(line)
            if heading and heading["version"] == version:
                body = []
        elif body is not None and not _LINK_REFERENCE.match(line):
            body.append(line)
    if body is None:
        raise MissingNotesError(f"CHANGELOG.md has no section '## [{version}] - YYYY-MM-DD'")
    found = "\n".join(body).strip()
    if not found:
        raise MissingNotesError(f"CHANGELOG.md's section [{version}] is empty")
    return found + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        sys.stderr.write("usage: python -m scripts.release_notes VERSION\n")
        return 2
    try:
        sys.stdout.write(notes(CHANGELOG.read_text(), argv[0]))
    except MissingNotesError as err:
        sys.stderr.write(f"release notes: {err}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
