"""``WaitingList``: the Now view's pending ``for:`` timers and open groups, filtered and paged.

Each list is read as a snapshot (``RulesEngine.pending``, ``open_groups``:
frozen values copied briefly under the rules' locks), then filtered, sorted
and paged on the request's thread; the pipeline's locks are not held
meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from notifier.api.paged import Paged, Where
from notifier.rules.timing.held_back import OpenGroup, PendingTimer, Shown

_T = TypeVar("_T")
PendingPage = Callable[[Shown, int, int], tuple[list[PendingTimer], int]]  # RulesEngine.pending


class WaitingList:
    def __init__(self, pending: PendingPage, groups: Callable[[], list[OpenGroup]]) -> None:
        self._pending, self._groups = pending, groups

    def pending(self, where: Where, offset: int, limit: int) -> Paged[PendingTimer]:
        def shown(rule: str, kind: str, namespace: str) -> bool:
            return (
                (not where.namespace or namespace == where.namespace)
                and (not where.kind or kind == where.kind)
                and (not where.rule or rule == where.rule)
            )

        offset = max(0, offset)
        items, total = self._pending(shown, offset, limit)
        return Paged(items, total, offset, limit)

    def groups(self, where: Where, offset: int, limit: int) -> Paged[OpenGroup]:
        items = [group for group in self._groups() if _group_within(group, where)]
        items.sort(key=lambda group: (group.due_at, group.rule, group.labels))
        return _page(items, offset, limit)


def _page(items: Sequence[_T], offset: int, limit: int) -> Paged[_T]:
    offset = max(0, offset)
    return Paged(list(items[offset : offset + max(0, limit)]), len(items), offset, limit)


def _group_within(group: OpenGroup, where: Where) -> bool:
    """A group is within a namespace or kind when one of its listed members (or labels) is."""
    labels = dict(group.labels)
    return (
        (not where.rule or group.rule == where.rule)
        and (
            not where.namespace
            or labels.get("namespace") == where.namespace
            or any(m.namespace == where.namespace for m in group.listed)
        )
        and (
            not where.kind
            or labels.get("kind") == where.kind
            or any(m.kind == where.kind for m in group.listed)
        )
    )
