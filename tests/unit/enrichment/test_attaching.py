"""Context handed on as facts (``context``), and each receiver showing it its own way."""

from __future__ import annotations

from notifier.enrichment.attaching import with_context
from notifier.enrichment.context import ContainerLog, Context, WarningEvent
from notifier.sinks import lines
from notifier.sinks.slack.blocks import context_blocks
from notifier.sinks.webhook.payload import payload_of

FACTS = {"summary": "Pod shop/web-1 is CrashLoopBackOff", "kind": "Pod", "name": "web-1"}
CONTEXT = Context(
    logs=(ContainerLog("app", True, ("<!channel> look", "```", "panic: boom")),),
    events=(WarningEvent("BackOff", "Back-off <b>", 9, "2026-01-02T00:00:00Z"),),
    owners=("ReplicaSet/web-7d9f", "Deployment/web"),
    problems=("events: timed out",),
    fetched_ms=12,
)


def test_the_context_is_plain_facts_beside_the_others() -> None:
    facts = with_context(FACTS, CONTEXT)
    assert {name: facts[name] for name in FACTS} == FACTS
    context = facts["context"]
    assert context["owners"] == ["ReplicaSet/web-7d9f", "Deployment/web"]
    assert context["logs"] == [
        {"container": "app", "previous": True, "truncated": False,
         "lines": ["<!channel> look", "```", "panic: boom"]}
    ]  # fmt: skip
    assert context["events"][0]["count"] == 9 and context["fetched_ms"] == 12


def test_nothing_fetched_and_nothing_wrong_leaves_the_facts_as_they_were() -> None:
    assert with_context(FACTS, Context()) is FACTS


def test_text_receivers_show_the_context_a_line_at_a_time() -> None:
    assert lines.context_lines(with_context(FACTS, CONTEXT)) == [
        "Owners: ReplicaSet/web-7d9f -> Deployment/web",
        "Warning events (newest first):",
        "  BackOff x9 (2026-01-02T00:00:00Z): Back-off <b>",
        "Log of app (previous instance, last 3 lines):",
        "  <!channel> look",
        "  ```",
        "  panic: boom",
        "Not fetched: events: timed out",
    ]


def test_slack_escapes_the_log_and_keeps_it_in_its_code_block() -> None:
    blocks = context_blocks(with_context(FACTS, CONTEXT)["context"])
    texts = [b["text"]["text"] if b["type"] == "section" else b["elements"][0]["text"]
             for b in blocks]  # fmt: skip
    owners, events, log, problem = texts
    assert owners == "*Owners:* ReplicaSet/web-7d9f → Deployment/web"
    assert "Back-off &lt;b&gt;" in events
    assert log.count("```") == 2 and log.endswith("panic: boom```")
    assert "&lt;!channel&gt; look" in log and "<!channel>" not in log
    assert problem == ":warning: Not fetched: events: timed out"


def test_a_long_log_keeps_its_end_within_slacks_section_limit() -> None:
    shown = tuple(f"line {n:04d} " + "x" * 90 for n in range(200))
    context = with_context(FACTS, Context(logs=(ContainerLog("app", False, shown),)))["context"]
    text = context_blocks(context)[-1]["text"]["text"]
    assert len(text) <= 3000 and text.endswith(shown[-1] + "```")


def test_the_webhook_payload_carries_the_context_as_fields() -> None:
    payload = payload_of(with_context(FACTS, CONTEXT))
    assert payload["object"]["name"] == "web-1"
    assert payload["context"]["owners"] == ["ReplicaSet/web-7d9f", "Deployment/web"]
