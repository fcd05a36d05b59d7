"""Why a transition or notification sent nothing: the ``reason`` label of the rules' metrics.

Apart from ``notifier.rules.metrics`` so that the compiled ``Ruleset`` names a
reason without the metrics' ``prometheus_client``: loading a config (``rules
check``) does not import it.
"""

from __future__ import annotations

from enum import StrEnum


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
