"""The template keys the rules no longer take, each refused at load saying what to write.

Rules render no message: every receiver renders its own from the facts, and
a sink's ``template:`` replaces a part of it (docs/receivers.md). A config
written before (``templates:``, a rule's ``template:`` or
``digest_template:``, ``defaults.template``) is refused with the key path of
each such key and where its parts go now.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from notifier.rules.config.problems import KeyPath, RuleProblems
from notifier.rules.config.specs import DefaultsSpec, RuleSpec

_WHERE_PARTS_GO = (
    "rules render no message now: each sink renders its own from the facts. Move "
    "'text' to the console or slack sink's template.text, 'blocks' to the slack sink's "
    "template.blocks, 'payload' to the webhook sink's template.payload, and remove this key "
    "(docs/receivers.md, 'Templates moved to the sinks')"
)


def refuse_moved_templates(
    templates: Mapping[str, Any],
    defaults: DefaultsSpec,
    rules: Sequence[tuple[int, RuleSpec]],
    problems: RuleProblems,
) -> None:
    for name in templates:
        problems.add(("templates", name), _WHERE_PARTS_GO)
    _refuse(defaults.template, defaults.digest_template, ("defaults",), problems)
    for position, rule in rules:
        _refuse(rule.template, rule.digest_template, ("rules", position), problems)


def _refuse(template: Any, digest: Any, path: KeyPath, problems: RuleProblems) -> None:
    if template is not None:
        problems.add((*path, "template"), _WHERE_PARTS_GO)
    if digest is not None:
        problems.add((*path, "digest_template"), _WHERE_PARTS_GO)
