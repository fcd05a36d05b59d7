"""What can still be checked in a file that failed validation, without follow-on errors.

Valid rules are compiled against sink, template and window names taken as
written, and against the custom resources whose declarations are valid. A
rule that names the kind of a broken ``watch.resources`` entry is left out
of this pass: every problem it would show follows from that entry, which
is reported already. A section too broken to read (defaults, or the top
level) stops the pass.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter, ValidationError

from notifier.config.kinds import config_kinds
from notifier.config.model import WatchConfig
from notifier.kinds.config import ResourceSpec
from notifier.kinds.registry import KINDS, Kinds
from notifier.rules.compiling import RulesSource
from notifier.rules.config.problems import KeyPath
from notifier.rules.config.specs import DefaultsSpec, MuteIntervalSpec, RuleSpec
from notifier.suggestions import Wording


@dataclass(frozen=True)
class PartialSource:
    source: RulesSource | None
    # problems of the valid resources (a repeat, a built-in)
    declared: list[tuple[KeyPath, Wording]]
    broken_rules: frozenset[int]  # rules naming a kind whose declaration is broken
    kinds: Kinds = KINDS  # the built-in kinds and the valid resources

    def follows_from_broken(self, path: KeyPath) -> bool:
        return len(path) > 1 and path[0] == "rules" and path[1] in self.broken_rules


def partial_source(
    data: Any, valid_rules: Mapping[int, RuleSpec], invalid_rules: frozenset[int] = frozenset()
) -> PartialSource:
    """``valid_rules``: the rules that validated, by position (``notifier.config.rule_specs``);
    ``invalid_rules``: positions of rules with a problem already (left out)."""
    if not isinstance(data, dict):
        return PartialSource(None, [], frozenset())
    kinds, declared, broken_kinds = _declare_valid_resources(data.get("watch"))
    rules = data.get("rules", [])
    items = list(enumerate(rules if isinstance(rules, list) else []))
    broken = frozenset(i for i, item in items if broken_kinds and _names_any(item, broken_kinds))
    defaults = _valid(DefaultsSpec, data.get("defaults", {}))
    if defaults is None:
        return PartialSource(None, declared, broken, kinds)
    source = RulesSource(
        rules=[(i, rule) for i, rule in valid_rules.items() if i not in invalid_rules],
        defaults=defaults,
        templates=data["templates"] if isinstance(data.get("templates"), dict) else {},
        mute_windows=_named(data.get("mute_windows"), list[MuteIntervalSpec], []),
        sinks=_sink_names(data.get("sinks")),
        cluster_name=str(data.get("cluster_name", "")),
        kinds=kinds,
    )
    return PartialSource(source, declared, broken, kinds)


def _declare_valid_resources(
    watch: Any,
) -> tuple[Kinds, list[tuple[KeyPath, Wording]], frozenset[str]]:
    """The kinds with each valid resource declared, their problems; the broken ones' kinds."""
    items = watch.get("resources") if isinstance(watch, dict) else None
    valid: list[ResourceSpec] = []
    broken: set[str] = set()
    for item in items if isinstance(items, list) else []:
        spec = _valid(ResourceSpec, item)
        if spec is not None:
            valid.append(spec)
        elif isinstance(item, dict) and isinstance(item.get("kind"), str):
            broken.add(item["kind"])
    kinds, declared = config_kinds(WatchConfig.model_construct(resources=valid, kinds=[]))
    return kinds, declared, frozenset(broken)


def _names_any(rule: Any, kinds: frozenset[str]) -> bool:
    match = rule.get("match") if isinstance(rule, dict) else None
    named = match.get("kinds") if isinstance(match, dict) else None
    return isinstance(named, list) and any(kind in kinds for kind in named)


def _valid(kind: Any, value: Any) -> Any:
    try:
        return _adapter(kind).validate_python(value)
    except ValidationError:
        return None


@functools.cache
def _adapter(kind: Any) -> TypeAdapter[Any]:
    """One per type: building an adapter costs more than validating a rule with it."""
    return TypeAdapter(kind)


def _named(section: Any, kind: Any, stand_in: Any) -> dict[str, Any]:
    """Items of a name -> value section; invalid ones replaced, so references still resolve."""
    if not isinstance(section, dict):
        return {}
    return {str(name): _or(_valid(kind, value), stand_in) for name, value in section.items()}


def _or(value: Any, stand_in: Any) -> Any:
    return stand_in if value is None else value


def _sink_names(section: Any) -> dict[str, bool]:
    items = section if isinstance(section, list) else []
    return {
        item["name"]: item.get("enabled") is not False
        for item in items
        if isinstance(item, dict) and isinstance(item.get("name"), str)
    }
