"""docs/cli.md lists every command and flag the parser has (generated; this catches drift)."""

from __future__ import annotations

from scripts.cli_reference import DOC, rendered


def test_docs_cli_is_current() -> None:
    current = DOC.read_text()
    assert current == rendered(current), "regenerate: python -m scripts.cli_reference"
