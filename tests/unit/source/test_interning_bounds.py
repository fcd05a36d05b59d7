"""The interning tables are bounded by bytes too, and never keep large values."""

from __future__ import annotations

import tracemalloc

import msgspec

from notifier.kinds.pod import Pod
from notifier.kinds.registry import share
from notifier.kinds.sharing import DEFAULT_MAX_BYTES, InternTable, Sharing
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


def test_small_fresh_values_cannot_hold_more_memory_than_the_budget() -> None:
    """A label set with a fresh value on every change (~150 characters, ~1 KB held): the
    tables count what they hold, not characters, so 60,000 of them stay within budget."""
    sharing = Sharing()
    labels = {"app": "web", "tier": "frontend", "team": "storefront", "version": "1.4.2"}
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for index in range(60_000):
            meta = ObjectMeta(name="web", namespace="shop", labels={**labels, "rev": f"r{index}"})
            share(sharing, Pod(metadata=meta))
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    counted = sharing.values.bytes_held + sharing.mappings.bytes_held
    assert counted <= 2 * 2 * DEFAULT_MAX_BYTES  # two tables, two generations each
    # What they really keep is within what they count (counting characters, they kept
    # 60,000 entries, ~25 MB, while counting ~10 MB).
    assert held <= counted, f"{held / 2**20:.1f} MiB held, {counted / 2**20:.1f} MiB counted"
