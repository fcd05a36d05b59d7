"""enrich: a rule's notifications carry what delivery is to fetch; other rules' carry nothing."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from notifier.rules.config.specs import RuleSpec
from notifier.rules.engine import RulesEngine
from tests.unit.rules.builders import NOW, POD_JSON, crashloop, ruleset, transition

ENRICHED = {
    "name": "crash-loops",
    "match": {"kinds": ["Pod"], "to": ["CrashLoopBackOff"]},
    "sinks": ["console", "slack"],
    "enrich": ["logs", "events", "owners", "logs"],
}
PLAIN = {
    "name": "deletes",
    "match": {"kinds": ["Pod"], "events": ["deleted"]},
    "sinks": ["console"],
}


def _engine() -> RulesEngine:
    compiled = ruleset([ENRICHED, PLAIN], defaults={"dedup_window": "0s"})
    return RulesEngine(lambda: compiled, clock=lambda: NOW)


def test_a_crash_loop_asks_for_the_crashed_containers_previous_log_events_and_owner() -> None:
    console, slack = _engine().process(crashloop())
    request = console.context
    assert request is not None and slack.context == request  # one fetch serves both sinks
    assert request.parts == ("logs", "events", "owners")
    assert (request.kind, request.namespace, request.name) == (
        "Pod",
        "shop",
        POD_JSON["metadata"]["name"],
    )
    assert request.logs == (("web", True),)
    assert request.owner == ("ReplicaSet", "web-7d4b9c6f5d")
    assert request.key == f"{POD_JSON['metadata']['uid']}@{POD_JSON['metadata']['resourceVersion']}"


def test_a_deleted_object_has_no_log_to_ask_for_and_rules_without_enrich_ask_nothing() -> None:
    compiled = ruleset([{**PLAIN, "enrich": ["logs", "events"]}])
    engine = RulesEngine(lambda: compiled, clock=lambda: NOW)
    [deleted] = engine.process(transition(POD_JSON, None))
    assert deleted.context is not None and deleted.context.logs == ()
    [plain] = _engine().process(transition(POD_JSON, None))
    assert plain.context is None


def test_an_unknown_part_is_refused_at_load() -> None:
    with pytest.raises(ValidationError, match="enrich"):
        RuleSpec.model_validate({**ENRICHED, "enrich": ["logs", "metrics"]})
