"""The compiled rules: ordered, indexed by kind and namespace, evaluated per transition.

Routing follows Alertmanager: rules are tried in file order and the first
that matches wins, unless it says ``continue: true``, in which case later
rules are tried too. A matching drop rule ends evaluation and sends
nothing (routes already matched by earlier ``continue`` rules still send).
A drop rule past its ``until`` is skipped. The default route (``defaults.
sinks``) is a last, implicit rule that applies only when nothing else
matched. A matching rule inside one of its mute windows takes the
transition like any match but sends nothing.

``Ruleset`` is immutable and shared by all worker threads. Evaluation is
pure: the time and lookups come in an ``EvalContext``.

Indexing: each rule is filed under the kinds it names (all kinds if none)
and, when its ``namespaces`` are all exact names, under those names;
others are filed as "any namespace". The candidates for (kind, namespace)
are precomputed at compile time, in file order, so evaluation only ever
looks at rules that could match.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from notifier.notifications import ContextPart
from notifier.objects import Kind
from notifier.origin import Origin
from notifier.records import record
from notifier.rules.config.specs import Action
from notifier.rules.matching.predicates import Matcher, NotOptedOut, OriginIn
from notifier.rules.matching.probing import EvalContext, Probe
from notifier.rules.noise.policy import Escalation, FlapPolicy, NoisePolicy
from notifier.rules.reasons import SuppressReason
from notifier.rules.suppression.inhibitions import CompiledInhibition
from notifier.rules.suppression.mute_windows import MuteWindow
from notifier.transitions.model import Transition

_STARTUP = frozenset({Origin.INITIAL_LIST, Origin.RESYNC})


@record(eq=False)
class CompiledRule:
    name: str
    position: int  # order of evaluation; the default route is last
    action: Action
    matcher: Matcher
    kinds: frozenset[Kind]
    namespaces: frozenset[str] | None  # exact names it is indexed by; None: any
    sinks: tuple[str, ...]  # enabled sinks only: a disabled sink receives nothing
    noise: NoisePolicy
    continue_matching: bool = False
    until: float | None = None
    mutes: tuple[MuteWindow, ...] = ()
    is_default_route: bool = False
    description: str = ""
    send_resolved: bool = False
    to: frozenset[str] = frozenset()  # the rule's ``to:`` names; empty: anything reached
    thread_by_object: bool = False
    thread_by_group: bool = False
    enrich: tuple[ContextPart, ...] = ()  # context delivery attaches to its notifications
    labels: tuple[tuple[str, str], ...] = ()  # for receivers that route by labels
    hold_for: float | None = None  # ``for:``: seconds in a ``to:`` state before it fires
    flapping: FlapPolicy | None = None
    escalate: tuple[Escalation, ...] = ()  # more sinks while it is still firing
    remind_every: float | None = None  # reminders while it is still firing
    fold_into_owner: bool = False  # ``fold_into: owner``: one incident per owner (rules/folding)

    @property
    def waits(self) -> bool:
        """It tells once its ``for:`` ran out, not when matched."""
        return self.hold_for is not None

    @property
    def timed(self) -> bool:
        """It keeps timers: ``for:``, escalation steps or reminders."""
        return self.waits or bool(self.escalate) or self.remind_every is not None

    def expired(self, now: float) -> bool:
        return self.until is not None and now >= self.until

    def muted(self, now: float) -> MuteWindow | None:
        return next((window for window in self.mutes if window.active(now)), None)


@dataclass(frozen=True, slots=True)
class Evaluation:
    routes: tuple[CompiledRule, ...]  # rules that matched and will notify
    muted: tuple[CompiledRule, ...] = ()
    dropped_by: CompiledRule | None = None
    suppressed: SuppressReason | None = None  # why nothing is sent, when that is deliberate


class Outcome(StrEnum):
    MATCHED = "matched"
    DROPPED = "dropped"
    MUTED = "muted"
    NOT_MATCHED = "not matched"
    EXPIRED = "expired"
    NOT_REACHED = "not reached"


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one rule made of one transition, for ``rules test --explain``."""

    rule: CompiledRule
    outcome: Outcome
    detail: str = ""


@dataclass(frozen=True, slots=True)
class _KindIndex:
    by_namespace: Mapping[str, tuple[CompiledRule, ...]]
    any_namespace: tuple[CompiledRule, ...]


@dataclass(frozen=True, eq=False)
class Ruleset:
    rules: tuple[CompiledRule, ...]
    cluster_name: str = ""
    sinks: Mapping[str, bool] = field(default_factory=dict)  # every configured sink: enabled?
    inhibitions: tuple[CompiledInhibition, ...] = ()
    timed: Mapping[str, CompiledRule] = field(init=False, repr=False)  # rules with ``for:``
    _index: Mapping[Kind, _KindIndex] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "timed", {rule.name: rule for rule in self.rules if rule.timed})
        object.__setattr__(self, "_index", _indexed(self.rules))

    def candidates(self, kind: Kind, namespace: str) -> tuple[CompiledRule, ...]:
        index = self._index.get(kind)
        if index is None:  # no rule names this kind
            return ()
        return index.by_namespace.get(namespace, index.any_namespace)

    def evaluate(self, transition: Transition, context: EvalContext) -> Evaluation:
        probe = Probe(transition, context)
        now = context.now
        routes: list[CompiledRule] = []
        muted: list[CompiledRule] = []
        misses: list[object] = []  # the predicates that failed, to name a suppression
        for rule in self.candidates(transition.kind, probe.obj.metadata.namespace):
            if rule.is_default_route and (routes or muted):
                break
            if rule.until is not None and now >= rule.until:
                continue
            failed = rule.matcher.first_failure(probe)
            if failed is not None:
                misses.append(failed)
                continue
            if rule.action is Action.DROP:
                return _dropped(routes, muted, rule)
            (muted if rule.muted(now) else routes).append(rule)
            if not rule.continue_matching:
                break
        reason = _reason(routes, muted, misses, transition.origin)
        return Evaluation(tuple(routes), tuple(muted), None, reason)

    def explain(self, transition: Transition, context: EvalContext) -> tuple[Verdict, ...]:
        """Every rule's verdict, in order, ignoring the index (slow; for people)."""
        probe = Probe(transition, context)
        verdicts: list[Verdict] = []
        stopped_by: CompiledRule | None = None
        matched_any = False
        for rule in self.rules:
            verdict = _verdict(rule, probe, stopped_by, matched_any)
            verdicts.append(verdict)
            if verdict.outcome in (Outcome.MATCHED, Outcome.MUTED, Outcome.DROPPED):
                matched_any = True
                stopped = verdict.outcome is Outcome.DROPPED or not rule.continue_matching
                stopped_by = stopped_by or (rule if stopped else None)
        return tuple(verdicts)


def _dropped(
    routes: list[CompiledRule], muted: list[CompiledRule], rule: CompiledRule
) -> Evaluation:
    reason = None if routes else SuppressReason.DROP_RULE
    return Evaluation(tuple(routes), tuple(muted), rule, reason)


def _reason(
    routes: list[CompiledRule], muted: list[CompiledRule], misses: list[object], origin: Origin
) -> SuppressReason | None:
    """Why nothing is sent, when that is deliberate rather than "no rule applies"."""
    if routes:
        return None
    if muted:
        return SuppressReason.MUTE
    if any(isinstance(failed, NotOptedOut) for failed in misses):
        return SuppressReason.OPT_OUT
    if origin in _STARTUP and any(isinstance(failed, OriginIn) for failed in misses):
        return SuppressReason.STARTUP
    return None


def _verdict(
    rule: CompiledRule, probe: Probe, stopped_by: CompiledRule | None, matched_any: bool
) -> Verdict:
    if stopped_by is not None:
        return Verdict(rule, Outcome.NOT_REACHED, f"rule {stopped_by.name!r} matched first")
    if rule.is_default_route and matched_any:
        return Verdict(rule, Outcome.NOT_REACHED, "the default route is for unmatched transitions")
    if rule.expired(probe.context.now):
        return Verdict(rule, Outcome.EXPIRED, "its 'until' has passed")
    failed = rule.matcher.first_failure(probe)
    if failed is not None:
        return Verdict(rule, Outcome.NOT_MATCHED, failed.why_not(probe))
    return _match_verdict(rule, probe.context.now)


def _match_verdict(rule: CompiledRule, now: float) -> Verdict:
    if rule.action is Action.DROP:
        return Verdict(rule, Outcome.DROPPED, "a drop rule")
    window = rule.muted(now)
    if window is not None:
        return Verdict(rule, Outcome.MUTED, f"mute window {window.name!r} is active")
    return Verdict(rule, Outcome.MATCHED, "continue: true" if rule.continue_matching else "")


def _indexed(rules: tuple[CompiledRule, ...]) -> dict[Kind, _KindIndex]:
    """Each kind's index. Rules name a few sets of kinds (most name none: every kind), so the
    rules are split by their set, and kinds found in the same sets share one index."""
    by_kinds: dict[frozenset[Kind], list[CompiledRule]] = {}
    for rule in rules:
        by_kinds.setdefault(rule.kinds, []).append(rule)
    shared: dict[tuple[frozenset[Kind], ...], _KindIndex] = {}
    index: dict[Kind, _KindIndex] = {}
    for kind in frozenset[Kind]().union(*by_kinds):
        sets = tuple(kinds for kinds in by_kinds if kind in kinds)
        if sets not in shared:
            of_kind = [rule for kinds in sets for rule in by_kinds[kinds]]
            if len(sets) > 1:
                of_kind.sort(key=_position)
            shared[sets] = _index_kind(of_kind)
        index[kind] = shared[sets]
    return index


def _position(rule: CompiledRule) -> int:
    return rule.position


def _index_kind(of_kind: list[CompiledRule]) -> _KindIndex:
    """The index of one kind's rules (in file order)."""
    anywhere = tuple(rule for rule in of_kind if rule.namespaces is None)
    by_namespace: dict[str, list[CompiledRule]] = {}
    for rule in of_kind:
        for namespace in rule.namespaces or ():
            by_namespace.setdefault(namespace, []).append(rule)
    merged = {
        namespace: tuple(sorted({*listed, *anywhere}, key=_position))
        for namespace, listed in by_namespace.items()
    }
    return _KindIndex(merged, anywhere)
