"""Loading a config file: YAML in, a validated ``Config`` and compiled ``Ruleset`` out.

Everything that can be checked without a cluster is checked here, and
every problem is reported at once in a ``ConfigError`` whose issues name
the file, line:column and key path: YAML syntax, unset environment
variables, unknown keys and wrong types (pydantic), then what needs the
whole file (sink, template and mute-window names, state names, patterns,
selectors, templates; see ``notifier.rules.compiling``). When some rules
or sinks are malformed, the others are still compiled so that their
problems show in the same report.

``load_config*`` return the ``Config``; ``read_config*`` return a
``LoadedConfig`` with the compiled ruleset, the warnings and the digest
the reload metrics publish. Nothing here raises anything but
``ConfigError`` (and ``OSError`` for an unreadable file).

A file is read with the cyclic GC paused (``notifier/importing.py``): the
nodes, data, models and compiled rules of a 20,000-rule file are about a
million objects with almost no garbage cycles, yet their allocations set off
collections that rescan them all, half the CPU of ``rules check`` on such a
file (docs/benchmarks.md). What a file makes is bounded by its size cap.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from notifier.config.comments import CommentHint, comment_hints
from notifier.config.documents import MAX_BYTES, Document, Position, parse_document
from notifier.config.errors import ConfigError, ConfigIssue
from notifier.config.kinds import config_kinds
from notifier.config.linting import secret_warnings
from notifier.config.model import Config
from notifier.config.partial import partial_source
from notifier.config.reachability import unreachable
from notifier.config.rule_specs import Validated, validated
from notifier.config.validating import Problem
from notifier.importing import collection_paused
from notifier.kinds.registry import KINDS, Kinds
from notifier.rules.compiling import RulesSource, compile_ruleset
from notifier.rules.config.problems import KeyPath, RulesError, format_path
from notifier.rules.config.specs import RuleSpec
from notifier.rules.ruleset import Ruleset
from notifier.suggestions import Wording


@dataclass(frozen=True)
class LoadedConfig:
    config: Config
    ruleset: Ruleset
    kinds: Kinds  # the built-in kinds and the config's custom resources
    warnings: tuple[ConfigIssue, ...]
    digest: str  # sha256 of the document after ${VAR} expansion
    source: str
    text: str = ""  # the document as read: a reload's sink error is located in it


def load_config(path: str | os.PathLike[str]) -> Config:
    return read_config(path).config


def load_config_text(
    text: str, source_name: str, *, environ: Mapping[str, str] | None = None
) -> Config:
    return read_config_text(text, source_name, environ=environ).config


def read_config(
    path: str | os.PathLike[str], *, environ: Mapping[str, str] | None = None
) -> LoadedConfig:
    return read_config_text(read_text(Path(path)), str(path), environ=environ)


def read_text(path: Path) -> str:
    """The file as text, read no further than the size a config may have.

    Raises ``ConfigError`` for a file that is too large or not UTF-8, naming where.
    """
    with path.open("rb") as file:
        data = file.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        size = path.stat().st_size
        raise _file_error(path, None, f"config is {size:,} bytes; at most {MAX_BYTES:,} are read")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise _file_error(path, (line, column), "not UTF-8 text here") from None


def _file_error(path: Path, where: tuple[int, int] | None, message: str) -> ConfigError:
    line, column = where if where is not None else (None, None)
    return ConfigError([ConfigIssue(str(path), line, column, "", message)])


def read_config_text(
    text: str, source_name: str, *, environ: Mapping[str, str] | None = None
) -> LoadedConfig:
    with collection_paused():
        return _read(text, source_name, os.environ if environ is None else environ)


def _read(text: str, source_name: str, environ: Mapping[str, str]) -> LoadedConfig:
    document = parse_document(text, environ)
    report = _Report(document, source_name)
    for path, position, message in document.problems:
        report.add(path, message, position)
    data = {} if document.data is None else document.data
    found = _validated(data, report, frozenset(document.from_environment))
    config = found.config
    kinds = _kinds(config, report)
    ruleset = _compiled(found, kinds, data, report)
    for path, message in unreachable(config, kinds=kinds) if config is not None else ():
        report.add(path, message)
    hints = comment_hints(text, document)
    if report.issues:
        for hint, comment in hints:
            report.add(hint.path, hint.message(comment), hint.where)
    report.raise_if_any()
    assert config is not None and ruleset is not None
    warnings = tuple(
        [*(_hint_warning(hint, comment, source_name) for hint, comment in hints),
         *secret_warnings(document, source_name)]
    )  # fmt: skip
    return LoadedConfig(config, ruleset, kinds, warnings, _digest(data), source_name, text)


def _hint_warning(hint: CommentHint, comment: str, source: str) -> ConfigIssue:
    where = hint.where
    path = format_path(hint.path)
    message = hint.message(comment)
    return ConfigIssue(source, where.line, where.column, path, message, severity="warning")


class _Report:
    """Issues of one file, located through the document's positions."""

    def __init__(self, document: Document, source: str) -> None:
        self._document = document
        self._source = source
        self.issues: list[ConfigIssue] = []
        self._paths: list[KeyPath] = []

    def add(self, path: KeyPath, message: Wording, position: Position | None = None) -> None:
        where = position or self._document.locate(path)
        line, column = (where.line, where.column) if where else (None, None)
        self.issues.append(ConfigIssue(self._source, line, column, format_path(path), message))
        self._paths.append(path)

    def paths(self) -> list[KeyPath]:
        return self._paths

    def add_problem(self, problem: Problem) -> None:
        where = self._document.locate(problem.path, prefer_key=problem.at_key)
        self.add(problem.path, problem.wording, where)

    def raise_if_any(self) -> None:
        if self.issues:
            raise ConfigError(self.issues)


def _validated(data: Any, report: _Report, hidden: frozenset[KeyPath]) -> Validated:
    found = validated(data, hidden)
    for problem in found.problems:
        report.add_problem(problem)
    if found.config is not None:
        for path, message in _duplicate_sinks(found.config):
            report.add(path, message)
    return found


def _duplicate_sinks(config: Config) -> list[tuple[KeyPath, str]]:
    seen: dict[str, int] = {}
    found: list[tuple[KeyPath, str]] = []
    for index, sink in enumerate(config.sinks):
        if sink.name in seen:
            message = f"duplicate sink name {sink.name!r} (first used by sinks[{seen[sink.name]}])"
            found.append((("sinks", index, "name"), message))
        seen.setdefault(sink.name, index)
    return found


def _kinds(config: Config | None, report: _Report) -> Kinds:
    """The config's kinds (the built-in ones when it failed validation: see ``partial``)."""
    if config is None:
        return KINDS
    kinds, problems = config_kinds(config.watch)
    for path, message in problems:
        report.add(path, message)
    return kinds


def _compiled(found: Validated, kinds: Kinds, data: Any, report: _Report) -> Ruleset | None:
    if found.config is None:
        _compile_partly(data, found.rules, report)
        return None
    try:
        return compile_ruleset(_source_of(found.config, kinds))
    except RulesError as exc:
        for problem in exc.problems:
            report.add(problem.path, problem.wording)
    return None


def _compile_partly(data: Any, rules: dict[int, RuleSpec], report: _Report) -> None:
    """More problems from a file that failed validation, leaving out those that follow from it."""
    invalid = frozenset(
        issue_path[1]
        for issue_path in report.paths()
        if issue_path[:1] == ("rules",) and len(issue_path) > 1 and isinstance(issue_path[1], int)
    )
    partial = partial_source(data, rules, invalid)
    for path, message in partial.declared:
        report.add(path, message)
    if partial.source is None:
        return
    try:
        compile_ruleset(partial.source)
    except RulesError as exc:
        for problem in exc.problems:
            if not partial.follows_from_broken(problem.path):
                report.add(problem.path, problem.wording)


def _source_of(config: Config, kinds: Kinds) -> RulesSource:
    return RulesSource(
        rules=list(enumerate(config.rules)),
        defaults=config.defaults,
        templates=config.templates,
        mute_windows=config.mute_windows,
        sinks=config.sink_states(),
        cluster_name=config.cluster_name,
        inhibit_rules=config.inhibit_rules,
        kinds=kinds,
    )


def _digest(data: Any) -> str:
    canonical = json.dumps(data, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()
