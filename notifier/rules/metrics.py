"""Rules metrics on the default Prometheus registry.

Labels are bounded: ``reason`` is a ``SuppressReason``, ``outcome`` and
``part`` are fixed words, ``form`` is ``single`` or ``digest``. Rule
names, namespaces and objects never become labels.
"""

from __future__ import annotations

from enum import StrEnum

from prometheus_client import Counter, Gauge


class SuppressReason(StrEnum):
    """Why a matched (or would-be matched) transition sent nothing."""

    DEDUP = "dedup"  # the same object and transition was sent within the dedup window
    GROUP = "group"  # folded into a group digest instead of being sent alone
    DROP_RULE = "drop_rule"  # a drop rule matched
    STARTUP = "startup"  # initial-list or resync origin that no rule opted in to
    MUTE = "mute"  # the matching rule is in a mute window
    OPT_OUT = "opt_out"  # the object carries the opt-out annotation
    INHIBITED = "inhibited"  # an inhibit rule's source holds (a Node NotReady mutes its Pods)
    SILENCED = "silenced"  # an active silence (kube-notifier silence add) matched
    PENDING_CANCELLED = "pending_cancelled"  # left the rule's states before its ``for:`` ran out
    FLAPPING = "flapping"  # the object flaps: one "flapping" message said so, the rest is quiet
    INCIDENT = "incident"  # a change inside the rule's open incident about the object: told once


_OUTCOMES = ("matched", "unmatched", "suppressed")

SUPPRESSED = Counter(
    "kube_notifier_rules_suppressed_total",
    "Transitions or notifications not sent, by reason.",
    ["reason"],
)
EVALUATIONS = Counter(
    "kube_notifier_rules_evaluations_total",
    "Transitions evaluated against the rules, by outcome.",
    ["outcome"],
)
NOTIFICATIONS = Counter(
    "kube_notifier_rules_messages_total",
    "Messages rendered by the rules (each sent to every sink of its rule), by form.",
    ["form"],
)
RENDER_FAILURES = Counter(
    "kube_notifier_rules_render_failures_total",
    "Template parts that failed to render and fell back to the built-in template.",
    ["part"],
)
PENDING_TIMERS = Gauge(
    "kube_notifier_rules_pending_timers",
    "Objects in a state a rule with 'for:' is timing, not yet told.",
)
FLAPPING = Gauge(
    "kube_notifier_rules_flapping",
    "Objects a rule with 'flapping:' holds as flapping now.",
)
FLAPPING_STARTED = Counter(
    "kube_notifier_rules_flapping_started_total",
    "Times an object was found flapping (entering and leaving a rule's states too often).",
)
PENDING_GROUPS = Gauge(
    "kube_notifier_rules_pending_groups",
    "Notification groups currently held by the noise control.",
)

# Every label made at import (so each series shows 0 before it counts), and kept: a
# transition counts without looking its series up (a few microseconds each).
SUPPRESSED_BY = {reason: SUPPRESSED.labels(reason=reason.value) for reason in SuppressReason}
EVALUATED = {outcome: EVALUATIONS.labels(outcome=outcome) for outcome in _OUTCOMES}
for _form in ("single", "digest"):
    NOTIFICATIONS.labels(form=_form)
for _part in ("text", "blocks", "payload"):
    RENDER_FAILURES.labels(part=_part)


def count_suppressed(reason: SuppressReason, amount: int = 1) -> None:
    SUPPRESSED_BY[reason].inc(amount)
