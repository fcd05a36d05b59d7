"""Events (core v1): a Warning or a Normal event, and the same event happening again.

An Event is news when it appears: a rule ``kinds: [Event]`` with
``to: [Warning]`` fires once per Event object. The kubelet and controllers
count repeats on the same object (``count``, or ``series.count``), so an
event that keeps happening is one notification, and ``Repeated`` is the
signal of each repeat, for a rule that wants them (with a ``dedup_window``
to keep it to one per window). The event's ``owner`` is the object it is
about (``involvedObject``), so ``owner: {kind: Pod}`` selects events about
Pods; ``reasons: [FailedScheduling, FailedMount]`` selects by reason.
"""

from __future__ import annotations

import msgspec

from notifier.kinds.diffing import Diff
from notifier.kinds.sharing import Sharing
from notifier.kinds.spec import ApiResource, Facts, KindSpec, facts
from notifier.objects import Kind, KubeObject, Wire

TYPES = ("Warning", "Normal")


class ObjectReference(Wire, frozen=True):
    kind: str = ""
    namespace: str = ""
    name: str = ""
    uid: str = ""
    field_path: str = ""


class EventSource(Wire, frozen=True):
    component: str = ""
    host: str = ""


class EventSeries(Wire, frozen=True):
    count: int = 0


class Event(KubeObject, frozen=True, tag="Event"):
    involved_object: ObjectReference = ObjectReference()
    reason: str = ""
    message: str = ""
    type: str = ""
    count: int = 0
    series: EventSeries | None = None
    source: EventSource = EventSource()
    reporting_component: str = ""
    first_timestamp: str | None = None
    last_timestamp: str | None = None


def times_seen(event: Event) -> int:
    """How often it happened: ``series.count`` (events.k8s.io writers) or ``count``, at least 1."""
    series = event.series.count if event.series is not None else 0
    return max(series, event.count, 1)


def _states(event: Event) -> frozenset[str]:
    return frozenset({event.type}) if event.type in TYPES else frozenset()


def _signals(old: Event, new: Event) -> list[str]:
    return ["Repeated"] if times_seen(new) > times_seen(old) else []


def _diff(diff: Diff, old: Event, new: Event) -> None:
    diff.text("reason", old.reason, new.reason)
    diff.text("message", old.message, new.message)
    diff.text("type", old.type, new.type)
    diff.number("count", times_seen(old), times_seen(new))


def _facts(event: Event, old: Event | None) -> Facts:
    seen = times_seen(event)
    return facts(event.reason, event.message, (("Seen", f"{seen} times" if seen > 1 else ""),))


def _owner(event: Event) -> tuple[str, str] | None:
    about = event.involved_object
    return (about.kind, about.name) if about.kind and about.name else None


def _share(sharing: Sharing, event: Event) -> Event:
    intern = sharing.values.intern
    return msgspec.structs.replace(
        event,
        metadata=sharing.metadata(event.metadata),
        involved_object=msgspec.structs.replace(
            event.involved_object,
            kind=intern(event.involved_object.kind),
            namespace=intern(event.involved_object.namespace),
        ),
        reason=intern(event.reason),
        type=intern(event.type),
        source=intern(event.source),
        reporting_component=intern(event.reporting_component),
    )


EVENT = KindSpec(
    kind=Kind.EVENT,
    struct=Event,
    api=ApiResource("", "v1", "events"),
    summary="Warning and Normal events, once each, with their repeats as a signal",
    states={
        "Warning": "`type` is `Warning`",
        "Normal": "`type` is `Normal`",
    },
    signals={"Repeated": "the event happened again (`count` or `series.count` grew)"},
    states_of=_states,
    signals_between=_signals,
    diff=_diff,
    facts=_facts,
    share=_share,
    owner=_owner,
    warning=("Warning",),
)
