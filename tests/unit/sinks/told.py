"""Notifications as the rules make them for a receiver: a crash loop, then its recovery.

The config is real (loaded as the service loads it), so the facts are the
ones a receiver gets in the service, fingerprint and rule labels included.
"""

from __future__ import annotations

from typing import Any

import yaml

from notifier.config import read_config_text
from notifier.notifications import Notification
from notifier.rules.engine import RulesEngine
from tests.unit.rules.builders import NOW, crashloop
from tests.unit.rules.test_resolved import _recovered


def config_text(sink: dict[str, Any], **rule: Any) -> str:
    config = {
        "cluster_name": "prod-eu",
        "sinks": [{"name": "out", **sink}],
        "rules": [{
            "name": "pod-crash", "match": {"kinds": ["Pod"], "to": ["CrashLoopBackOff"]},
            "sinks": ["out"], "send_resolved": True, "labels": {"team": "shop"}, **rule,
        }],
    }  # fmt: skip
    return yaml.safe_dump(config)


def firing_and_resolved(sink: dict[str, Any], **rule: Any) -> tuple[Notification, Notification]:
    loaded = read_config_text(config_text(sink, **rule), "receiver.yaml", environ={})
    engine = RulesEngine(lambda: loaded.ruleset, clock=lambda: NOW)
    [firing] = engine.process(crashloop())
    assert engine.process(_recovered()) == []  # recovering: over after its recovery window
    [resolved] = engine.tick(NOW + 60.0).notifications
    return firing, resolved


def told_once(sink: dict[str, Any]) -> list[Notification]:
    """A crash loop told by a rule that does not tell its end."""
    loaded = read_config_text(config_text(sink, send_resolved=False), "receiver.yaml", environ={})
    return RulesEngine(lambda: loaded.ruleset, clock=lambda: NOW).process(crashloop())
