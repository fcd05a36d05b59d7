"""The docs name only what exists, and what exists is documented (issue #27).

Metrics: every ``kube_notifier_*`` name in the docs is served, and every served one is in
docs/metrics.md (that file is generated; its own test checks it is current). CLI flags:
every ``--flag`` on a ``kube-notifier`` line of the docs is a flag of the command, and
docs/cli.md lists every flag (generated too). Config keys: every key in the docs' YAML
configs is a key of the config (unknown keys are the loader's errors), and every key
the config has is named somewhere in the docs. Every page is reachable from the index.
"""

from __future__ import annotations

import argparse
import re
import types
import typing
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from notifier.cli import build_parser
from notifier.config import ConfigError, read_config_text
from notifier.config.model import Config
from notifier.rules.reasons import SuppressReason
from scripts.metrics_catalogue import rows

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [*DOCS, ROOT / "README.md", ROOT / "helm" / "kube-notifier" / "README.md"]
TOP_KEYS = frozenset(Config.model_fields)
_COMMAND = re.compile(r"\bkube-notifier (run|rules|silence|dead-letters)\b")


class _Anything(Mapping[str, str]):
    """An environment where every variable is set, so references load."""

    def __getitem__(self, name: str) -> str:
        return "https://placeholder.invalid/x"

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _yaml_blocks() -> Iterator[tuple[Path, Any]]:
    for page in PAGES:
        for block in re.findall(r"```yaml\n(.*?)```", _text(page), re.DOTALL):
            yield page, yaml.safe_load(block)


def test_every_page_is_reachable_from_the_index() -> None:
    index = _text(ROOT / "docs" / "README.md")
    linked = set(re.findall(r"\]\(([\w.-]+\.md)\)", index))
    assert linked >= {page.name for page in DOCS if page.name != "README.md"}
    assert "(docs/README.md)" in _text(ROOT / "README.md")


NOT_METRICS = frozenset({"kube_notifier_context"})  # a webhook body's key (enrichment.md)


def test_metrics_named_in_the_docs_exist() -> None:
    served = {name for name, *_ in rows()} | NOT_METRICS
    families = {re.sub(r"_(total|info)$", "", name) for name in served}
    for page in PAGES:
        for name in set(re.findall(r"\bkube_notifier_[a-z_]+[a-z]", _text(page))):
            base = re.sub(r"_(total|info|bucket|count|sum)$", "", name)
            assert name in served or base in families, f"{page.name}: {name} is not served"


def test_every_suppression_reason_is_documented() -> None:
    line = next(
        line for line in _text(ROOT / "docs" / "rules.md").splitlines()
        if line.startswith("| `kube_notifier_rules_suppressed_total")
    )  # fmt: skip
    assert set(re.findall(r"`([a-z_]+)`", line.split("|")[2])) == {r.value for r in SuppressReason}


def _flags(parser: argparse.ArgumentParser) -> Iterator[str]:
    for action in parser._actions:
        yield from (option for option in action.option_strings if option.startswith("--"))
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _flags(child)


def test_flags_named_in_the_docs_exist() -> None:
    ours = set(_flags(build_parser()))
    for page in PAGES:
        for line in _text(page).splitlines():
            if not _COMMAND.search(line) or "helm " in line or "kubectl " in line:
                continue
            for flag in re.findall(r"(?<![\w-])--[a-z][a-z-]*[a-z]", line):
                assert flag in ours, f"{page.name}: {flag} is not a kube-notifier flag: {line}"


def test_config_keys_in_the_docs_exist() -> None:
    checked = 0
    for page, block in _yaml_blocks():
        data = _as_config(block)
        if data is None:
            continue
        checked += 1
        try:
            read_config_text(yaml.safe_dump(data), page.name, environ=_Anything())
        except ConfigError as exc:
            unknown = [str(i) for i in exc.issues if i.message.startswith("unknown key")]
            assert not unknown, f"{page.name}: {unknown}"
    assert checked >= 10


def _as_config(block: Any) -> dict[str, Any] | None:
    """A block as a config: a whole one, or a list of sinks or of rules."""
    if isinstance(block, list) and all(isinstance(item, dict) for item in block):
        return {"sinks" if all("type" in item for item in block) else "rules": block}
    return block if isinstance(block, dict) and set(block) <= TOP_KEYS else None


def _keys(model: type[BaseModel], seen: set[type[BaseModel]]) -> Iterator[str]:
    if model in seen:
        return
    seen.add(model)
    for name, field in model.model_fields.items():
        yield field.alias or name
        for inner in _models(field.annotation):
            yield from _keys(inner, seen)


def _models(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    if typing.get_origin(annotation) is typing.Annotated:
        yield from _models(typing.get_args(annotation)[0])
        return
    for arg in typing.get_args(annotation):
        if not isinstance(arg, types.GenericAlias | type) or arg is not type(None):
            yield from _models(arg)


def test_every_config_key_is_documented() -> None:
    text = "\n".join(_text(page) for page in [*PAGES, *(ROOT / "docs" / "examples").glob("*")])
    missing = sorted(
        {key for key in _keys(Config, set()) if not re.search(rf"(`|\b){key}(`|:)", text)}
    )
    assert missing == []
