"""Per-scope baselines: a kind or namespace watched for the first time starts quiet."""

from __future__ import annotations

from collections.abc import Iterable

from notifier.objects import Kind, KubeObject, ObjectKey
from notifier.workers.keys import WorkKey
from notifier.workers.known import Known, scope_name
from tests.unit.workers.test_intake import _pod


class Marks:
    """A saved state with per-scope marks."""

    def __init__(self, marks: Iterable[str] = (), *, legacy: bool = False) -> None:
        self.marks = set(marks)
        self.legacy = legacy
        self.forgotten: list[WorkKey] = []

    def load_seen(self) -> list[tuple[WorkKey, KubeObject]]:
        return [(WorkKey(Kind.POD, ObjectKey("shop/web")), _pod("web"))]

    def has_baseline(self) -> bool:
        return bool(self.marks) or self.legacy

    def mark_baseline(self, scopes: Iterable[str]) -> None:
        self.marks |= set(scopes)

    def baselines(self) -> frozenset[str]:
        return frozenset(self.marks)

    def forget_baseline(self, scope: str) -> None:
        self.marks.discard(scope)

    def save_seen(self, changes: list[tuple[WorkKey, KubeObject | None]]) -> None:
        self.forgotten += [key for key, obj in changes if obj is None]


POD_IN_SHOP = WorkKey(Kind.POD, ObjectKey("shop/web"))
POD_ELSEWHERE = WorkKey(Kind.POD, ObjectKey("other/web"))
JOB_IN_SHOP = WorkKey(Kind.JOB, ObjectKey("shop/nightly"))
NODE = WorkKey(Kind.NODE, ObjectKey("node-1"))


def test_a_first_start_is_quiet_everywhere() -> None:
    known = Known(Marks())
    assert all(known.quiet(key) for key in (POD_IN_SHOP, JOB_IN_SHOP, NODE))


def test_only_scopes_not_yet_acted_on_are_quiet() -> None:
    known = Known(Marks({"Pod/shop", "Node/*"}))
    assert not known.quiet(POD_IN_SHOP) and not known.quiet(NODE)
    assert known.quiet(POD_ELSEWHERE) and known.quiet(JOB_IN_SHOP)
    known.mark_baseline([scope_name(Kind.JOB, None)])
    assert not known.quiet(JOB_IN_SHOP)


def test_a_file_from_before_scopes_counts_every_scope_as_acted_on_until_marked() -> None:
    known = Known(Marks(legacy=True))
    assert not known.quiet(JOB_IN_SHOP)  # as before: no way to tell what was watched
    known.mark_baseline(["Pod/*"])  # the first settle marks what is watched now
    assert known.quiet(JOB_IN_SHOP) and not known.quiet(POD_ELSEWHERE)


def test_a_forgotten_scope_loses_its_objects_and_its_mark() -> None:
    saved = Marks({"Pod/shop"})
    known = Known(saved)
    assert known.get(POD_IN_SHOP) is not None
    assert known.forget_scope(Kind.POD, "shop") == 1
    assert known.get(POD_IN_SHOP) is None and saved.forgotten == [POD_IN_SHOP]
    assert "Pod/shop" not in saved.marks and known.quiet(POD_IN_SHOP)
