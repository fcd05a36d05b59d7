"""Field-level differences, the part every kind shares: the accumulator and the metadata.

Each kind's module says which of its fields are compared and how they are
rendered (``KindSpec.diff``); ``notifier.transitions.changes`` runs it after
the metadata. Paths use the API's camelCase, as users write them in
``fields:`` rules. Items of a list (containers, conditions) are addressed by
name or type, never by index, so a reordering is not a change. Values are
rendered as short text; ``None`` means the field is absent on that side.

Every part is compared as a Struct first (``__eq__`` runs in C) and rendered
as text only when it differs: most events touch a few fields of the status.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, TypeVar

import msgspec

from notifier.objects import Condition, ObjectMeta

Fields = dict[str, str]
"""Rendered fields of one item: path suffix -> text. Absent fields are left out."""

_Item = TypeVar("_Item", bound=msgspec.Struct)

IGNORED_ANNOTATIONS = frozenset({"kubectl.kubernetes.io/last-applied-configuration"})

name_of: Callable[[Any], str] = attrgetter("name")
type_of: Callable[[Condition], str] = attrgetter("type")


@dataclass(frozen=True, slots=True)
class Change:
    """One field that differs. ``path`` is dotted (``status.phase``,
    ``spec.template.spec.containers[web].image``); values are rendered as text."""

    path: str
    old: str | None
    new: str | None


def changed_items(
    old: Sequence[_Item], new: Sequence[_Item], address: Callable[[_Item], str]
) -> tuple[dict[str, _Item], dict[str, _Item]]:
    """The items of each side not found unchanged on the other, by name.

    Containers and conditions are matched by name (or type), so a reordering
    is no change. Detection uses this too, so a signal always has a matching
    change. A name given twice (an invalid object) keeps its last item.
    """
    before = {address(item): item for item in old if item not in new}
    after = {address(item): item for item in new if item not in old}
    return before, after


def render_condition(cond: Condition) -> str:
    """``True/NewReplicaSetAvailable``, or just ``True`` when there is no reason."""
    return with_reason(cond.status, cond.reason, separator="/")


def with_reason(head: str, reason: str, separator: str = ":") -> str:
    return f"{head}{separator}{reason}" if reason else head


class Diff:
    """Collects changes; every method compares before it renders anything."""

    __slots__ = ("changes",)

    def __init__(self) -> None:
        self.changes: list[Change] = []

    def text(self, path: str, old: str, new: str) -> None:
        """A string field; the empty string is how an absent field decodes."""
        if old != new:
            self.changes.append(Change(path, old or None, new or None))

    def number(self, path: str, old: int | None, new: int | None) -> None:
        if old != new:
            self.changes.append(Change(path, _optional_str(old), _optional_str(new)))

    def flag(self, path: str, old: bool, new: bool) -> None:
        if old != new:
            self.changes.append(Change(path, str(old), str(new)))

    def rendered(self, path: str, old: str | None, new: str | None) -> None:
        if old != new:
            self.changes.append(Change(path, old, new))

    def mapping(self, prefix: str, old: Mapping[str, str], new: Mapping[str, str]) -> None:
        """One change per key; ``new``'s order first, then keys that were removed."""
        if old == new:
            return
        for key in dict.fromkeys([*new, *old]):
            self.rendered(f"{prefix}.{key}", old.get(key), new.get(key))

    def keyed(
        self,
        prefix: str,
        old: Sequence[_Item],
        new: Sequence[_Item],
        address: Callable[[_Item], str],
        render: Callable[[_Item], Fields],
    ) -> None:
        """Items addressed as ``prefix[name]``; only items that differ are rendered."""
        if old == new:
            return
        before, after = changed_items(old, new, address)
        for name in dict.fromkeys([*after, *before]):
            was, now = before.get(name), after.get(name)
            old_fields = {} if was is None else render(was)
            new_fields = {} if now is None else render(now)
            self.fields(f"{prefix}[{name}]", old_fields, new_fields)

    def fields(self, prefix: str, old: Fields, new: Fields) -> None:
        keys = new.keys() if new.keys() == old.keys() else dict.fromkeys([*new, *old])
        for suffix in keys:
            was, now = old.get(suffix), new.get(suffix)
            if was != now:
                self.changes.append(Change(f"{prefix}{suffix}", was, now))

    def conditions(self, old: Sequence[Condition], new: Sequence[Condition]) -> None:
        """``status.conditions[<type>]`` as ``True/Reason``: messages and times are no change."""
        self.keyed("status.conditions", old, new, type_of, _condition_fields)

    def metadata(self, old: ObjectMeta, new: ObjectMeta) -> None:
        self.mapping("metadata.labels", old.labels, new.labels)
        if old.annotations != new.annotations:
            self.mapping("metadata.annotations", _annotations(old), _annotations(new))
        self.number("metadata.generation", old.generation, new.generation)
        self.text(
            "metadata.deletionTimestamp",
            old.deletion_timestamp or "",
            new.deletion_timestamp or "",
        )
        if old.owner_references != new.owner_references:
            self.text("metadata.ownerReferences", _owners(old), _owners(new))


def _optional_str(value: int | None) -> str | None:
    return None if value is None else str(value)


def _condition_fields(cond: Condition) -> Fields:
    return {"": render_condition(cond)}


def _annotations(meta: ObjectMeta) -> Mapping[str, str]:
    annotations = meta.annotations
    if IGNORED_ANNOTATIONS.isdisjoint(annotations):
        return annotations
    return {key: value for key, value in annotations.items() if key not in IGNORED_ANNOTATIONS}


def _owners(meta: ObjectMeta) -> str:
    return ",".join(f"{ref.kind}/{ref.name}" for ref in meta.owner_references)
