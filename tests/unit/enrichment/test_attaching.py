from __future__ import annotations

from notifier.enrichment.attaching import with_context
from notifier.enrichment.context import ContainerLog, Context, WarningEvent
from notifier.notifications import Message

MESSAGE = Message(
    text="Pod shop/web-1 is CrashLoopBackOff",
    blocks=({"type": "section", "text": {"type": "mrkdwn", "text": "crash"}},),
    payload={"kind": "Pod", "name": "web-1"},
)
CONTEXT = Context(
    logs=(ContainerLog("app", True, ("<!channel> look", "```", "panic: boom")),),
    events=(WarningEvent("BackOff", "Back-off <b>", 9, "2026-01-02T00:00:00Z"),),
    owners=("ReplicaSet/web-7d9f", "Deployment/web"),
    problems=("events: timed out",),
    fetched_ms=12,
)


def test_text_form_has_indented_lines_under_the_message() -> None:
    text = with_context(MESSAGE, CONTEXT).text
    assert text.splitlines() == [
        "Pod shop/web-1 is CrashLoopBackOff",
        "  owners: ReplicaSet/web-7d9f -> Deployment/web",
        "  warning events (newest first):",
        "    BackOff x9 (2026-01-02T00:00:00Z): Back-off <b>",
        "  log of app (previous instance, last 3 lines):",
        "    <!channel> look",
        "    ```",
        "    panic: boom",
        "  context: events: timed out",
    ]


def test_slack_blocks_escape_the_log_and_keep_it_in_its_code_block() -> None:
    blocks = with_context(MESSAGE, CONTEXT).blocks
    assert blocks[0] == MESSAGE.blocks[0]
    texts = [b["text"]["text"] if b["type"] == "section" else b["elements"][0]["text"]
             for b in blocks[1:]]  # fmt: skip
    owners, events, log, problem = texts
    assert owners == "*Owners:* ReplicaSet/web-7d9f → Deployment/web"
    assert "Back-off &lt;b&gt;" in events
    assert log.count("```") == 2 and log.endswith("panic: boom```")
    assert "&lt;!channel&gt; look" in log and "<!channel>" not in log
    assert problem == ":warning: events: timed out"


def test_a_long_log_keeps_its_end_within_slacks_section_limit() -> None:
    lines = tuple(f"line {n:04d} " + "x" * 90 for n in range(200))
    blocks = with_context(MESSAGE, Context(logs=(ContainerLog("app", False, lines),))).blocks
    text = blocks[-1]["text"]["text"]
    assert len(text) <= 3000 and text.endswith(lines[-1] + "```")


def test_webhook_payload_gets_the_context_as_fields() -> None:
    payload = with_context(MESSAGE, CONTEXT).payload
    assert payload["name"] == "web-1"
    context = payload["context"]
    assert context["owners"] == ["ReplicaSet/web-7d9f", "Deployment/web"]
    assert context["logs"] == [
        {"container": "app", "previous": True, "truncated": False,
         "lines": ["<!channel> look", "```", "panic: boom"]}
    ]  # fmt: skip
    assert context["events"][0]["count"] == 9 and context["fetched_ms"] == 12


def test_a_template_that_owns_context_keeps_it() -> None:
    mine = Message(text="t", payload={"context": "mine"})
    payload = with_context(mine, CONTEXT).payload
    assert payload["context"] == "mine" and payload["kube_notifier_context"]["owners"]


def test_nothing_fetched_and_nothing_wrong_leaves_the_message_as_it_was() -> None:
    assert with_context(MESSAGE, Context()) is MESSAGE
    bare = Message(text="t")
    assert with_context(bare, CONTEXT).blocks == () and with_context(bare, CONTEXT).payload == {}
