"""The rules validated one by one, apart from the rest of the file, each once.

One invalid rule fails pydantic's validation of the whole ``Config``, and the
valid rules are still wanted then: the partial pass compiles them, so that
their problems show in the same report (``notifier.config.partial``). Each
rule is validated here alone, the rest of the file without its rules, and
the ``Config`` is joined from both: a file with 15,000 valid rules and 5,000
invalid ones validates each once, not the valid ones twice
(docs/benchmarks.md). A problem is located as ``Config``'s validation would
locate it: the same key path, the same words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from notifier.config.model import Config
from notifier.config.validating import Problem, problems_of
from notifier.rules.config.problems import KeyPath
from notifier.rules.config.specs import RuleSpec


@dataclass
class Validated:
    """The ``Config`` (None: some problem), the rules that validated by position, the problems."""

    config: Config | None
    rules: dict[int, RuleSpec] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def validated(data: Any, hidden: frozenset[KeyPath]) -> Validated:
    """``data`` validated as a ``Config``; ``hidden``: the paths whose values are not quoted."""
    rules = data.get("rules") if isinstance(data, dict) else None
    if not isinstance(rules, list):  # no rules, or a problem with the section itself
        return _whole(data, hidden)
    found = Validated(None)
    validate = RuleSpec.__pydantic_validator__.validate_python  # no wrapper call per rule
    for index, item in enumerate(rules):
        try:
            found.rules[index] = validate(item)
        except ValidationError as exc:
            found.problems += problems_of(exc, item, RuleSpec, hidden, ("rules", index))
    rest = _whole({**data, "rules": []}, hidden)
    found.problems += rest.problems
    if rest.config is not None and not found.problems:
        found.config = rest.config.model_copy(update={"rules": list(found.rules.values())})
    return found


def _whole(data: Any, hidden: frozenset[KeyPath]) -> Validated:
    try:
        return Validated(Config.model_validate(data))
    except ValidationError as exc:
        return Validated(None, problems=problems_of(exc, data, Config, hidden))
