"""docs/architecture.md against the tree: its packages and its thread families are the code's."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "architecture.md").read_text()
CODE = {path: path.read_text() for path in (ROOT / "notifier").rglob("*.py")}


def _thread_families() -> set[str]:
    """Each ``supervised(...)`` call's family: its ``family=`` or, without one, its name."""
    found: set[str] = set()
    for text in CODE.values():
        found |= set(re.findall(r'family: str = "([a-z-]+)"', text))
        found |= set(re.findall(r'family="([a-z-]+)"', text))
        for call in re.findall(r"(?<!def )supervised\(([^()]*(?:\([^()]*\)[^()]*)*)\)", text):
            if "family=" not in call:
                name = re.match(r'\s*"([a-z-]+)"', call)
                assert name, f"supervised({call}): give a literal name or a family"
                found.add(name.group(1))
    return found


def _documented_families() -> set[str]:
    table = PAGE.split("| family | how many | what it does |")[1].split("\n\n")[0]
    return set(re.findall(r"^\| `([a-z-]+)` \|", table, re.M))


def test_every_thread_family_is_in_the_table_and_every_row_is_a_family() -> None:
    assert _documented_families() == _thread_families()


def test_every_package_is_named_and_every_named_package_exists() -> None:
    packages = {
        path.parent.relative_to(ROOT).as_posix()
        for path in (ROOT / "notifier").glob("*/__init__.py")
    }
    named = set(re.findall(r"`(notifier/[a-z_]+)`", PAGE)) | set(
        re.findall(r"^ (notifier/[a-z_]+) ", PAGE, re.M)
    )
    diagram = (ROOT / "docs" / "diagrams" / "data-flow.txt").read_text()
    named |= set(re.findall(r"\b(notifier/[a-z_]+)\b", diagram))
    named_packages = {name for name in named if (ROOT / name).is_dir()}
    assert packages - named_packages == set(), "packages the page does not name"
    assert {
        n for n in named if not (ROOT / n).exists() and not (ROOT / f"{n}.py").exists()
    } == set()
