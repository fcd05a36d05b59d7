"""What a reload changes in the informers: the plan, from the two configs."""

from __future__ import annotations

from typing import Any

from notifier.config.model import WatchConfig
from notifier.kinds.config import ResourceSpec
from notifier.kinds.custom import custom_kind
from notifier.kinds.registry import KINDS
from notifier.objects import Kind
from notifier.reload.watch_changes import plan


def _watch(**fields: Any) -> WatchConfig:
    return WatchConfig.model_validate(fields)


GADGET = {"kind": "Gadget", "group": "g.test", "version": "v1", "resource": "gadgets",
          "states": {"Ready": {"condition": "Ready"}}}  # fmt: skip


def test_kinds_added_and_removed() -> None:
    changes = plan(_watch(kinds=["Pod", "Job"]), _watch(kinds=["Pod", "Node"]), KINDS)
    assert changes.stop == (Kind.JOB,) and changes.start == (Kind.NODE,)


def test_nothing_changes_for_the_same_watch_or_other_sections() -> None:
    assert not plan(_watch(kinds=["Pod"]), _watch(kinds=["Pod"], workers=8), KINDS)


def test_new_namespaces_restart_namespaced_kinds_only() -> None:
    before, after = _watch(kinds=["Pod", "Node"]), _watch(kinds=["Pod", "Node"], namespaces=["a"])
    changes = plan(before, after, KINDS)
    assert changes.stop == changes.start == (Kind.POD,)


def test_a_custom_resource_declared_differently_starts_afresh() -> None:
    renamed = {**GADGET, "states": {"Up": {"condition": "Ready"}}}
    before = _watch(kinds=["Pod"], resources=[GADGET])
    after = _watch(kinds=["Pod"], resources=[renamed])
    kinds = KINDS.declaring([custom_kind(ResourceSpec.model_validate(renamed))])
    assert plan(before, after, kinds).start == (Kind("Gadget"),)
    assert not plan(before, _watch(kinds=["Pod"], resources=[GADGET]), kinds)
