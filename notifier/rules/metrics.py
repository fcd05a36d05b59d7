"""Rules metrics on the default Prometheus registry.

Labels are bounded: ``reason`` is a ``SuppressReason``, ``outcome`` and
``part`` are fixed words, ``form`` is ``single`` or ``digest``. Rule
names, namespaces and objects never become labels. ``SuppressReason`` is
``notifier.rules.reasons``'s, here too for the stage's modules that count.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge

from notifier.rules.reasons import SuppressReason

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
    "Messages the rules made (each sent to every sink of its rule), by form.",
    ["form"],
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


def count_suppressed(reason: SuppressReason, amount: int = 1) -> None:
    SUPPRESSED_BY[reason].inc(amount)
