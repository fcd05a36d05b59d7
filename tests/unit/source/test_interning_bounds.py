"""The interning tables are bounded by bytes too, and never keep large values."""

from __future__ import annotations

import msgspec

from notifier.kinds.pod import Pod
from notifier.kinds.registry import share
from notifier.kinds.sharing import InternTable, Sharing
from notifier.objects import ObjectMeta


def _pod_with(annotation: str) -> Pod:
    meta = ObjectMeta(name="web", namespace="shop", uid="u", annotations={"note": annotation})
    return Pod(metadata=meta)


def test_fresh_large_annotations_are_not_kept_by_the_tables() -> None:
    sharing = Sharing()
    for index in range(200):  # 200 patches, each a fresh 200 KB value: 40 MB if kept
        shared = share(sharing, _pod_with(f"{index:06d}" + "x" * 200_000))
        assert shared.metadata.annotations["note"].startswith(f"{index:06d}")
    assert sharing.values.bytes_held < 1024 * 1024
    assert sharing.mappings.bytes_held < 1024 * 1024


def test_a_table_rotates_on_bytes_before_entries() -> None:
    table = InternTable(capacity=1_000_000, max_bytes=10_000, max_item_bytes=1_000)
    for index in range(1_000):
        table.intern(f"{index:04d}" + "v" * 500)
    assert table.bytes_held <= 2 * 10_000  # two generations of at most max_bytes


def test_small_repeated_values_are_still_shared() -> None:
    sharing = Sharing()
    first = share(sharing, _pod_with("storefront"))
    second = share(
        sharing, msgspec.json.decode(msgspec.json.encode(_pod_with("storefront")), type=Pod)
    )
    assert first.metadata.annotations is second.metadata.annotations
    assert first.metadata.namespace is second.metadata.namespace
