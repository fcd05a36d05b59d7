"""Rule settings as they appear in the config file: ``rules:``, ``defaults:``
and ``mute_windows:``.

These models check shape and syntax only (types, unknown keys, durations,
times, time zones). Everything that needs the rest of the file (sink names,
template names, state names per kind, regexes, selectors, template source)
is checked when the rules are compiled (``notifier.rules.compiling``), so
that all errors of a file can be reported together with their key paths.
"""

from __future__ import annotations

import re
import zoneinfo
from datetime import datetime, time
from enum import StrEnum
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator, model_validator

from notifier.notifications import ContextPart
from notifier.objects import EventType, Kind
from notifier.origin import Origin
from notifier.rules.config.durations import Duration

_RULE_NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9_.-]{0,98}[A-Za-z0-9])?")
GROUP_LABELS = ("rule", "kind", "namespace", "name", "transition", "owner", "reason")
_LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]{0,127}")
_LABEL_GROUP = re.compile(r"label:[^\s,]+")
_TIME_RANGE = re.compile(r"(\d{2}):(\d{2})\s*-\s*(\d{2}):(\d{2})")


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Action(StrEnum):
    NOTIFY = "notify"
    DROP = "drop"


class OwnerSpec(_Spec):
    kind: str | None = None
    name: list[str] = Field(default_factory=list)

    @field_validator("name", mode="before")
    @classmethod
    def _one_name_is_a_list(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value


class MatchSpec(_Spec):
    """When a rule applies. Every field given must hold; a list holds when any item does."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    kinds: list[Kind] = Field(default_factory=list)
    namespaces: list[str] = Field(default_factory=list)
    namespace_selector: str | None = None
    names: list[str] = Field(default_factory=list)
    reasons: list[str] = Field(default_factory=list)
    labels: str | None = None
    annotations: str | None = None
    events: list[EventType] = Field(default_factory=list)
    from_states: list[str] = Field(default_factory=list, alias="from")
    to: list[str] = Field(default_factory=list)
    changed_fields: list[str] = Field(default_factory=list, alias="fields")
    owner: OwnerSpec | None = None
    origins: list[Origin] | None = None  # None: the defaults' origins
    # Fire only once the object has stayed in one of its ``to:`` states this long (pending first)
    hold_for: Duration | None = Field(default=None, alias="for")


MATCH_ALL = MatchSpec()


class FlappingSpec(_Spec):
    """An object entering and leaving the rule's states ``changes`` times within ``within``."""

    changes: int = Field(ge=2, le=1000)
    within: Duration

    @field_validator("within")
    @classmethod
    def _some_time(cls, value: float) -> float:
        if value <= 0:
            raise ValueError("'within' must be longer than 0s")
        return value


class EscalationSpec(_Spec):
    """Still firing ``after`` its notification (not resolved, not silenced): tell ``sinks`` too."""

    after: Duration
    sinks: list[str] = Field(min_length=1)


class RuleSpec(_Spec):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    name: str
    description: str = ""
    # A rule without ``match:`` matches everything: they all share one frozen MatchSpec (a
    # default instance would be deep-copied per rule, a factory of new ones validated per rule).
    match: MatchSpec = Field(default_factory=lambda: MATCH_ALL)
    action: Action = Action.NOTIFY
    until: AwareDatetime | None = None
    sinks: list[str] = Field(default_factory=list)
    continue_matching: bool = Field(default=False, alias="continue")
    # Refused at compile (rules/config/moved_templates.py): each sink renders its own message now.
    template: Any = None
    digest_template: Any = None
    honor_opt_out: bool = True
    mute: list[str] = Field(default_factory=list)
    dedup_window: Duration | None = None
    recovery_window: Duration | None = None  # recovered that long: the incident is over
    group_by: list[str] | None = None
    group_wait: Duration | None = None
    group_interval: Duration | None = None
    repeat_interval: Duration | None = None
    send_resolved: bool = False  # tell once when the object leaves the states it was told for
    flapping: FlappingSpec | None = None  # one "flapping" message, then quiet until stable
    # still firing after a while: more sinks, once per step
    escalate: list[EscalationSpec] = Field(default_factory=list)
    # "object": one Slack thread per object and rule: repeats and the resolution reply in it;
    # "group": one per group of a grouping rule: its digests, lone members and resolutions
    thread_by: Literal["object", "group"] | None = None
    # "owner": the objects of one owner (a Deployment's Pods, a Job and its Pods) are one
    # incident, told once and resolved once (rules/incidents/folding.py)
    fold_into: Literal["owner"] | None = None
    # Context fetched and attached before sending (notifier.enrichment): off the workers' path.
    enrich: list[ContextPart] = Field(default_factory=list)
    # Labels for receivers that route by labels (Alertmanager), beside the ones every alert has.
    labels: dict[str, str] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _readable_name(cls, value: str) -> str:
        if not _RULE_NAME.fullmatch(value):
            raise ValueError(
                f"invalid rule name {value!r}: expected letters, digits, '-', '_' or '.', "
                "starting and ending with a letter or digit, at most 100 characters"
            )
        return value

    @field_validator("labels")
    @classmethod
    def _label_names(cls, value: dict[str, str]) -> dict[str, str]:
        for name in value:
            if not _LABEL_NAME.fullmatch(name):
                raise ValueError(
                    f"invalid label name {name!r}: expected [a-zA-Z_][a-zA-Z0-9_]* "
                    "(Alertmanager's label names)"
                )
        return value

    @field_validator("enrich")
    @classmethod
    def _each_part_once(cls, value: list[ContextPart]) -> list[ContextPart]:
        return list(dict.fromkeys(value))

    @field_validator("group_by")
    @classmethod
    def _known_group_labels(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else [_group_label(label) for label in value]

    @model_validator(mode="after")
    def _drop_sends_nothing(self) -> RuleSpec:
        if self.until is not None and self.action is not Action.DROP:
            raise ValueError("'until' is only allowed on drop rules (action: drop)")
        if self.action is Action.DROP and self.sinks:
            raise ValueError("a drop rule sends nothing: remove 'sinks'")
        return self


def _group_label(label: str) -> str:
    if label in GROUP_LABELS or _LABEL_GROUP.fullmatch(label):
        return label
    expected = ", ".join(GROUP_LABELS)
    raise ValueError(f"unknown group_by label {label!r}: expected one of {expected} or label:<key>")


class DefaultsSpec(_Spec):
    """Settings every rule inherits unless it sets its own."""

    sinks: list[str] = []  # the default route, and the sinks of rules that name none
    dedup_window: Duration = 60.0
    # An incident ends once its object has been out of trouble this long (docs/rules.md,
    # "Incidents"): longer than a crash-looping container runs between its restarts.
    recovery_window: Duration = 60.0
    group_by: list[str] = []  # empty: no grouping unless a rule asks for it
    group_wait: Duration = 30.0
    group_interval: Duration = 300.0
    repeat_interval: Duration = 4 * 3600.0
    digest_max_items: int = Field(default=20, ge=1, le=500)
    notify_on_initial_list: bool = False
    opt_out_annotation: str = "kube-notifier.io/ignore"
    template: Any = None  # refused, as a rule's: rules/config/moved_templates.py
    digest_template: Any = None

    @field_validator("group_by")
    @classmethod
    def _known_group_labels(cls, value: list[str]) -> list[str]:
        return [_group_label(label) for label in value]


Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
WEEKDAYS: tuple[str, ...] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


class TimeRange(_Spec):
    start: time
    end: time  # before ``start``: the range runs past midnight


class MuteIntervalSpec(_Spec):
    """A time when rules naming this window stay quiet. Every field given must hold."""

    start: AwareDatetime | None = None
    end: AwareDatetime | None = None
    weekdays: list[Weekday] = []
    times: list[TimeRange] = []
    timezone: str = "UTC"

    @field_validator("times", mode="before")
    @classmethod
    def _parse_time_ranges(cls, value: object) -> object:
        if isinstance(value, list):
            return [_time_range(item) if isinstance(item, str) else item for item in value]
        return value

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        try:
            zoneinfo.ZoneInfo(value)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown time zone {value!r}: expected an IANA name") from None
        return value

    @model_validator(mode="after")
    def _start_before_end(self) -> MuteIntervalSpec:
        if self.start is not None and self.end is not None and self.end <= self.start:
            raise ValueError("'end' must be after 'start'")
        return self


def _time_range(text: str) -> dict[str, str]:
    found = _TIME_RANGE.fullmatch(text.strip())
    if found is None:
        raise ValueError(f"invalid time range {text!r}: expected HH:MM-HH:MM")
    start, end = f"{found[1]}:{found[2]}", f"{found[3]}:{found[4]}"
    return {"start": start, "end": end}


def as_timestamp(moment: datetime | None) -> float | None:
    return None if moment is None else moment.timestamp()


class InhibitSpec(_Spec):
    """While a ``source`` object holds one of its ``to`` states, ``target`` matches are not told."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=128)
    source: MatchSpec
    target: MatchSpec
    equal: list[str] = []  # namespace, node, workload, label:<key>
