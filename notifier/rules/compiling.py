"""From rule settings to a ``Ruleset``: every check that needs the whole file.

``compile_ruleset`` resolves sink and mute-window names, checks
``from``/``to`` words against the vocabulary of the rule's kinds, compiles
patterns and selectors, refuses the template keys rules no longer take
(``moved_templates``), and merges each rule's noise settings
with the defaults. It reports every problem at once (``RulesError``, each
problem with its key path) and is otherwise pure.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from notifier.kinds.registry import KINDS, Kinds
from notifier.origin import Origin
from notifier.rules.config.moved_templates import refuse_moved_templates
from notifier.rules.config.problems import KeyPath, RuleProblems
from notifier.rules.config.specs import (
    Action,
    DefaultsSpec,
    InhibitSpec,
    MatchSpec,
    MuteIntervalSpec,
    RuleSpec,
    as_timestamp,
)
from notifier.rules.matching.match_compiler import CompiledMatch, MatchCompiler, match_key
from notifier.rules.matching.predicates import Matcher, NotOptedOut, OriginIn
from notifier.rules.noise.policy import Escalation, FlapPolicy, NoisePolicy
from notifier.rules.ruleset import CompiledRule, Ruleset
from notifier.rules.suppression.inhibitions import compile_inhibition
from notifier.rules.suppression.mute_windows import MuteWindow, compile_window

DEFAULT_ROUTE = "default"
ALWAYS_ORIGINS = frozenset({Origin.LIVE, Origin.RELIST, Origin.CATCH_UP})


@dataclass(frozen=True)
class RulesSource:
    """The parts of a config file the rules are compiled from."""

    rules: Sequence[tuple[int, RuleSpec]]  # (position under ``rules:``, rule)
    defaults: DefaultsSpec = field(default_factory=DefaultsSpec)
    templates: Mapping[str, Any] = field(default_factory=dict)  # refused: moved_templates.py
    mute_windows: Mapping[str, Sequence[MuteIntervalSpec]] = field(default_factory=dict)
    sinks: Mapping[str, bool] = field(default_factory=dict)  # name -> enabled
    cluster_name: str = ""
    inhibit_rules: Sequence[InhibitSpec] = ()
    kinds: Kinds = KINDS  # the built-in kinds and the config's custom resources


def compile_ruleset(source: RulesSource) -> Ruleset:
    """The ruleset, or ``RulesError`` listing every problem found."""
    problems = RuleProblems()
    compiler = _Compiler(source, problems)
    rules = [compiler.rule(position, spec) for position, spec in source.rules]
    inhibitions = [
        compile_inhibition(i, spec, problems, source.kinds)
        for i, spec in enumerate(source.inhibit_rules)
    ]
    default_route = compiler.default_route()
    compiler.finish()
    problems.raise_if_any()
    compiled = [rule for rule in (*rules, default_route) if rule is not None]
    return Ruleset(
        rules=tuple(compiled),
        cluster_name=source.cluster_name,
        sinks=dict(source.sinks),
        inhibitions=tuple(i for i in inhibitions if i is not None),
    )


def default_origins(defaults: DefaultsSpec) -> frozenset[Origin]:
    """Origins a rule accepts unless it lists its own: never resyncs, initial list on request."""
    if defaults.notify_on_initial_list:
        return ALWAYS_ORIGINS | {Origin.INITIAL_LIST}
    return ALWAYS_ORIGINS


class _Compiler:
    def __init__(self, source: RulesSource, problems: RuleProblems) -> None:
        self._source = source
        self._defaults = source.defaults
        self._problems = problems
        self._windows = {n: compile_window(n, s) for n, s in source.mute_windows.items()}
        self._first_position: dict[str, int] = {}
        self._default_origins = default_origins(source.defaults)
        self._matches: dict[tuple[object, ...], CompiledMatch] = {}  # bounded by the file
        self._enabled_sinks: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._policies: dict[tuple[object, ...], NoisePolicy] = {}
        self._check_sinks(self._defaults.sinks, ("defaults", "sinks"))

    def rule(self, position: int, spec: RuleSpec) -> CompiledRule | None:
        path: KeyPath = ("rules", position)
        self._check_name(spec.name, position)
        before = len(self._problems.items)
        matcher, kinds, namespaces = self._match(spec, path)
        sinks = self._rule_sinks(spec, path)
        mutes = self._mutes(spec.mute, (*path, "mute"))
        if spec.match.hold_for is not None and spec.action is Action.DROP:
            self._problems.add((*path, "match", "for"), "a drop rule cannot wait: remove 'for'")
        if spec.flapping is not None and (not spec.match.to or spec.action is Action.DROP):
            message = (
                "'flapping' counts entries into the rule's 'to:' states: a notify rule with 'to:'"
            )
            self._problems.add((*path, "flapping"), message)
        if spec.fold_into is not None and (
            spec.action is Action.DROP or not (spec.match.to or spec.send_resolved)
        ):
            message = "'fold_into' folds incidents: a notify rule with 'to:' or send_resolved"
            self._problems.add((*path, "fold_into"), message)
        noise = self._noise(spec)
        if spec.thread_by == "group" and not noise.grouped:
            message = "thread_by: group needs group_by (on the rule or in defaults)"
            self._problems.add((*path, "thread_by"), message)
        if len(self._problems.items) > before:
            return None
        return CompiledRule(
            name=spec.name,
            position=position,
            action=spec.action,
            matcher=matcher,
            kinds=kinds,
            namespaces=namespaces,
            sinks=sinks,
            noise=noise,
            continue_matching=spec.continue_matching,
            until=as_timestamp(spec.until),
            mutes=mutes,
            description=spec.description,
            send_resolved=spec.send_resolved,
            to=frozenset(spec.match.to),
            thread_by_object=spec.thread_by == "object",
            thread_by_group=spec.thread_by == "group",
            enrich=tuple(spec.enrich),
            labels=tuple(sorted(spec.labels.items())),
            hold_for=spec.match.hold_for or None,  # ``for: 0s``: no wait, as in Prometheus
            flapping=_flap_policy(spec),
            escalate=self._escalation(spec, path),
            remind_every=_reminders(spec, noise),
            fold_into_owner=spec.fold_into == "owner",
        )

    def default_route(self) -> CompiledRule | None:
        """The implicit last rule sending unmatched transitions to ``defaults.sinks``."""
        defaults = self._defaults
        if not defaults.sinks:
            return None
        predicates = (NotOptedOut(defaults.opt_out_annotation), OriginIn(default_origins(defaults)))
        return CompiledRule(
            name=DEFAULT_ROUTE,
            position=len(self._source.rules),
            action=Action.NOTIFY,
            matcher=Matcher(predicates),
            kinds=self._source.kinds.all,
            namespaces=None,
            sinks=self._enabled(defaults.sinks),
            noise=self._noise(RuleSpec(name=DEFAULT_ROUTE)),
            is_default_route=True,
            description="transitions no rule matched",
        )

    def finish(self) -> None:
        source = self._source
        refuse_moved_templates(source.templates, source.defaults, source.rules, self._problems)

    def _check_name(self, name: str, position: int) -> None:
        if name == DEFAULT_ROUTE:
            message = f"the rule name {DEFAULT_ROUTE!r} is reserved for the default route"
            self._problems.add(("rules", position, "name"), message)
        elif name in self._first_position:
            first = self._first_position[name]
            message = f"duplicate rule name {name!r} (first used by rules[{first}])"
            self._problems.add(("rules", position, "name"), message)
        else:
            self._first_position[name] = position

    def _match(self, spec: RuleSpec, path: KeyPath) -> CompiledMatch:
        """The rule's matcher, shared with the rules before it that match alike (compiled
        again for each rule whose ``match:`` has problems, so that each is located)."""
        match: MatchSpec = spec.match
        origins = frozenset(match.origins) if match.origins else self._default_origins
        if match.hold_for is not None and not match.origins:
            # A level held for a time: what is already in it at start is timed too (so every
            # replica, and a first start, times it), and told only once its ``for:`` ran out.
            origins |= {Origin.INITIAL_LIST}
        optout = self._defaults.opt_out_annotation if spec.honor_opt_out else None
        key = (match_key(match), origins, optout)
        compiled = self._matches.get(key)
        if compiled is None:
            before = len(self._problems.items)
            compiler = MatchCompiler(self._problems, (*path, "match"), self._source.kinds)
            compiled = compiler.compile(match, origins=origins, opt_out_annotation=optout)
            if len(self._problems.items) == before:
                self._matches[key] = compiled
        return compiled

    def _escalation(self, spec: RuleSpec, path: KeyPath) -> tuple[Escalation, ...]:
        if not spec.escalate:  # most rules
            return ()
        if not spec.match.to or spec.action is Action.DROP:
            message = (
                "'escalate' times what stays in the rule's 'to:' states: a notify rule with 'to:'"
            )
            self._problems.add((*path, "escalate"), message)
        for position, step in enumerate(spec.escalate):
            self._check_sinks(step.sinks, (*path, "escalate", position, "sinks"))
        return tuple(Escalation(step.after, self._enabled(step.sinks)) for step in spec.escalate)

    def _rule_sinks(self, spec: RuleSpec, path: KeyPath) -> tuple[str, ...]:
        if spec.action is Action.DROP:
            return ()
        if not spec.sinks and not self._defaults.sinks:
            self._problems.add(
                (*path, "sinks"), "the rule sends nowhere: list 'sinks' or set defaults.sinks"
            )
        self._check_sinks(spec.sinks, (*path, "sinks"))
        return self._enabled(spec.sinks or self._defaults.sinks)

    def _check_sinks(self, names: Sequence[str], path: KeyPath) -> None:
        sinks = self._source.sinks
        for position, name in enumerate(names):
            if name not in sinks:
                message = f"unknown sink {name!r} (defined: {self._defined_sinks})"
                self._problems.add((*path, position), message)

    @functools.cached_property
    def _defined_sinks(self) -> str:
        return ", ".join(sorted(self._source.sinks)) or "none"

    def _enabled(self, names: Sequence[str]) -> tuple[str, ...]:
        listed = tuple(names)
        enabled = self._enabled_sinks.get(listed)
        if enabled is None:  # rules list a few sets of sinks: each is worked out once
            sinks = self._source.sinks
            enabled = tuple(dict.fromkeys(name for name in listed if sinks.get(name)))
            self._enabled_sinks[listed] = enabled
        return enabled

    def _mutes(self, names: Sequence[str], path: KeyPath) -> tuple[MuteWindow, ...]:
        if not names:
            return ()
        defined = ", ".join(sorted(self._windows)) or "none"
        for position, name in enumerate(names):
            if name not in self._windows:
                self._problems.add(
                    (*path, position), f"unknown mute window {name!r} (defined: {defined})"
                )
        return tuple(self._windows[name] for name in names if name in self._windows)

    def _noise(self, spec: RuleSpec) -> NoisePolicy:
        """The rule's settings merged with the defaults: one policy per distinct set of them."""
        defaults = self._defaults
        group_by = tuple(defaults.group_by if spec.group_by is None else spec.group_by)
        own = (spec.dedup_window, spec.recovery_window, group_by, spec.group_wait,
               spec.group_interval, spec.repeat_interval)  # fmt: skip
        noise = self._policies.get(own)
        if noise is None:
            noise = self._policies[own] = NoisePolicy(
                dedup_window=_first(spec.dedup_window, defaults.dedup_window),
                recovery_window=_first(spec.recovery_window, defaults.recovery_window),
                group_by=group_by,
                group_wait=_first(spec.group_wait, defaults.group_wait),
                group_interval=_first(spec.group_interval, defaults.group_interval),
                repeat_interval=_first(spec.repeat_interval, defaults.repeat_interval),
                max_listed=defaults.digest_max_items,
            )
        return noise


def _reminders(spec: RuleSpec, noise: NoisePolicy) -> float | None:
    """A rule's own ``repeat_interval`` reminds of what stays in its ``to:`` states (ungrouped:
    a group's ``repeat_interval`` is how long a member is not reported again)."""
    if spec.repeat_interval is None or noise.grouped or not spec.match.to:
        return None
    return spec.repeat_interval or None


def _flap_policy(spec: RuleSpec) -> FlapPolicy | None:
    flapping = spec.flapping
    return None if flapping is None else FlapPolicy(flapping.changes, flapping.within)


def _first(value: float | None, default: float) -> float:
    return default if value is None else value
