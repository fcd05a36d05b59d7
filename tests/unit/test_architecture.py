"""docs/architecture.md against the tree: its packages and its thread families are the code's;
and the docstrings against the registries: a list of kinds, receivers or thread families, or a
count of them, says what the registry holds (so it cannot go stale silently)."""

from __future__ import annotations

import ast
import re
import typing
from collections.abc import Callable, Iterator
from pathlib import Path

from notifier.kinds.registry import KINDS
from notifier.kinds.workload import PodTemplateSpec
from notifier.sinks.registry import RECEIVERS

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


# -- the words of the docstrings against the registries ------------------------------------
def _docstrings() -> Iterator[tuple[str, str]]:
    """Every docstring in notifier/ (modules, classes, functions), with where it is."""
    for path, text in sorted(CODE.items()):
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef):
                said = ast.get_docstring(node, clean=False)
                if said:
                    where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 1)}"
                    yield where, said


def _receivers() -> set[str]:
    return {receiver.name for receiver in RECEIVERS}


def _workloads() -> set[str]:
    return {str(kind) for kind, spec in KINDS.items() if spec.workload}


def _with_a_pod_template() -> set[str]:
    def template_of(spec: object) -> object:
        return typing.get_type_hints(spec).get("template") if isinstance(spec, type) else None

    return {
        str(kind)
        for kind, spec in KINDS.items()
        if template_of(typing.get_type_hints(spec.struct).get("spec")) is PodTemplateSpec
    }


# What a list of names may be besides a whole registry: a set the registry also says.
SUBSETS: dict[str, Callable[[], set[str]]] = {
    "workloads": _workloads,
    "kinds with a pod template": _with_a_pod_template,
}


def _lists(text: str, names: set[str]) -> Iterator[tuple[re.Match[str], list[str]]]:
    """Runs of three or more of ``names`` ("Pods, Deployments and Services"), plurals too."""
    word = "|".join(sorted(map(re.escape, names), key=len, reverse=True))
    item = rf"(?:the\s+)?`{{0,2}}(?:{word})(?:e?s)?`{{0,2}}"
    sep = r"(?:,\s+and\s+|,\s+or\s+|,\s+|\s+and\s+|\s+or\s+|/)"
    for found in re.finditer(rf"(?<![\w-]){item}(?:{sep}{item})+(?![\w-])", text, re.I):
        listed = re.findall(rf"(?<![\w-])({word})", found.group(0), re.I)
        if len(listed) >= 3:
            yield found, listed


def _example(text: str, found: re.Match[str]) -> bool:
    """Marked as examples: "e.g.", "such as", "like" before, "..." after."""
    before, after = text[max(0, found.start() - 12) : found.start()], text[found.end() :]
    return bool(re.search(r"(e\.g\.|such as|like|for example) ?\(?$", before)) or after.startswith(
        ("...", "…", ", ...")
    )


def _stale(registry: set[str], listed: list[str]) -> bool:
    named = {name.lower() for name in listed}
    sets = [registry, *(subset() for subset in SUBSETS.values())]
    return all(named != {name.lower() for name in known} for known in sets)


def test_docstrings_that_list_kinds_receivers_or_thread_families_list_them_all() -> None:
    registries = {
        "kinds": {str(kind) for kind in KINDS},
        "receivers": _receivers(),
        "thread families": _thread_families(),
    }
    stale = [
        f"{where}: {found.group(0)!r} is not every one of the {what} ({', '.join(sorted(names))})"
        for where, said in _docstrings()
        for what, names in registries.items()
        for found, listed in _lists(said, names)
        if not _example(said, found) and _stale(names, listed)
    ]
    assert stale == []


def test_docstrings_that_count_kinds_or_receivers_count_right() -> None:
    counts = {"kind": len(KINDS), "kinds": len(KINDS), "receivers": len(_receivers())}
    wrong = [
        f"{where}: {found.group(0)!r}"
        for where, said in _docstrings()
        for found in re.finditer(r"``(kind)`` \((\d+) values\)|(\d+) (kinds|receivers)\b", said)
        if int(found.group(2) or found.group(3)) != counts[found.group(1) or found.group(4)]
    ]
    assert wrong == []


# Each receiver's format, and the package it may appear in (code, docstrings and comments).
FORMATS = {
    "notifier/sinks/slack/": ("Block Kit", "plain_text", "mrkdwn", '"type": "header"'),
    "notifier/sinks/webhook/": ("kube-notifier/v1",),
    "notifier/sinks/alertmanager/": ("alertname", "startsAt", "endsAt", "generatorURL"),
}


def test_a_receivers_format_is_written_only_in_its_own_package() -> None:
    astray = [
        f"{path.relative_to(ROOT)}: {marker!r} is {home}'s"
        for path, text in CODE.items()
        for home, markers in FORMATS.items()
        for marker in markers
        if marker in text and not path.relative_to(ROOT).as_posix().startswith(home)
    ]
    assert astray == []
