"""A Slack or webhook sink's own ``template:``: its message from the facts, not the rule's.

Without it, these sinks send what the rule's template rendered (its ``text``,
``blocks`` and ``payload``), as they always have. With it, the sink renders
the parts it names from the notification's facts (the rules then attach
them), in the same bounded sandbox and with the same shapes as a rule's
template (docs/rules.md); blocks escape what ``{{ }}`` prints for Slack's
markup. A part it leaves out, or one that fails to render, is the rule's.
A template that does not compile or uses a variable facts never hold fails
the build, naming the sink and the part.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import msgspec

from notifier.notifications import FACT_NAMES, Message, Notification
from notifier.sinks.secrets import SinkBuildError
from notifier.sinks.settings import Strict
from notifier.templating.compiling import KeyPath, Render, TemplateCompiler
from notifier.templating.environment import make_environment
from notifier.templating.sandbox import render_budget
from notifier.text import mrkdwn_escaped


class MessageTemplateSpec(Strict):
    """The parts a sink renders itself; each left out is the rule's."""

    text: str | None = None
    blocks: list[Any] | None = None
    payload: dict[str, Any] | None = None


class _Raise:
    def __init__(self, sink: str) -> None:
        self._sink = sink

    def add(self, path: KeyPath, message: str) -> None:
        where = ".".join(str(part) for part in path)
        raise SinkBuildError(f"sink {self._sink!r}: {where}: {message}")


class SinkMessageTemplate:
    def __init__(self, sink: str, spec: MessageTemplateSpec) -> None:
        problems = _Raise(sink)
        plain = TemplateCompiler(make_environment(), problems)
        markup = TemplateCompiler(make_environment(mrkdwn_escaped), problems, mrkdwn_escaped)
        self._text = (
            None if spec.text is None else plain.text(spec.text, ("template", "text"), FACT_NAMES)
        )
        self._blocks = (
            None
            if spec.blocks is None
            else markup.shape(spec.blocks, ("template", "blocks"), FACT_NAMES)
        )
        self._payload = (
            None
            if spec.payload is None
            else plain.shape(spec.payload, ("template", "payload"), FACT_NAMES)
        )

    def applied(self, notification: Notification) -> Notification:
        """``notification`` with the parts this template renders from its facts."""
        facts, rule = notification.facts, notification.message
        if facts is None:  # sent before the sink had a template: the rule's message
            return notification
        message = Message(
            text=_rendered(self._text, facts, _text, rule.text),
            blocks=_rendered(self._blocks, facts, _blocks, rule.blocks),
            payload=_rendered(self._payload, facts, _payload, rule.payload),
        )
        return dataclasses.replace(notification, message=message)


def _rendered(
    render: Render | None, facts: dict[str, Any], shape: Callable[[Any], Any], rule: Any
) -> Any:
    if render is None:
        return rule
    try:
        with render_budget():
            return shape(render(facts))
    except Exception:  # the sandbox's refusal, a digest without an object's facts: the rule's
        return rule


def _text(value: Any) -> str:
    return str(value).strip()


def _blocks(value: Any) -> tuple[dict[str, Any], ...]:
    value = msgspec.to_builtins(value)
    if not isinstance(value, list) or not all(isinstance(block, dict) for block in value):
        raise TypeError("blocks must render to a list of mappings")
    return tuple(value)


def _payload(value: Any) -> dict[str, Any]:
    value = msgspec.to_builtins(value)
    if not isinstance(value, dict):
        raise TypeError("payload must render to a mapping")
    return value
