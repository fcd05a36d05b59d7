"""One copy of each repeated value in the cache: namespaces, labels, images, conditions...

Thousands of cached Pods repeat the same few namespaces, label sets, images,
node names and condition lists, but msgspec decodes a fresh copy of each
for every object. Each kind's ``share`` (``notifier.kinds``) returns an
equal object whose repeated parts are the instances ``Sharing`` already
holds for earlier objects, so the cache keeps one copy of each. It is the
last step of the source's ``trim``.

What is shared, and how:

- strings that repeat across objects (namespace, node name, restart
  policy, phase, a container status's name and image) are interned;
- frozen values that repeat as a whole are interned as a whole (a Pod's
  tuple of conditions, its owner references, its containers, its status and
  container statuses and their states, a Service's ports), because they hold
  no per-object strings (no timestamps, no UIDs but an owner's: the Structs
  leave out the timestamps nothing reads, such as a container's ``startedAt``);
- label, annotation and selector dicts are shared between objects with the
  same items. Shared dicts must never be mutated; no cached object may be
  (they are frozen Structs, read by several threads).

Per-object values (name, UID, resourceVersion, timestamps) are left alone:
interning them would only fill the tables.

The tables are bounded, by entries and by bytes. Each is two generations
of at most ``capacity`` entries and ``max_bytes`` of memory (``held_bytes``:
what Python holds for an entry, its objects' headers included, not just its
characters): a hit in the old generation moves the entry to the young one,
and when the young one is full the old one is dropped. Unique values that
got in (a label only one Pod has) are dropped after two rotations; values in
use keep being found.
Objects already cached keep the copies they hold. A value larger than
``max_item_bytes`` (of content: ``size_of``) is never interned: a fresh 200
KB annotation on every patch once kept 65,536 of them alive (RSS grew by
hundreds of MB). Counting characters only for the budget let small unique
values (a label set with a fresh value, ~150 characters, ~1 KB held with its
dict and key) fill 65,536 entries a generation: the hour-long soak
(``bench.soak``) grew ~40 MiB an hour that way.

Thread safety: informer threads call ``share`` concurrently without a
lock. Each dict operation is atomic under the GIL, so a race can only
store an equal value twice (one copy less shared), never return an
unequal one.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Hashable, Mapping
from typing import Any, TypeVar

import msgspec

from notifier.objects import Condition, ObjectMeta

DEFAULT_CAPACITY = 65_536
DEFAULT_MAX_BYTES = 6 * 1024 * 1024  # held, per generation, per table
DEFAULT_MAX_ITEM_BYTES = 4 * 1024  # longer values are per-object in practice: not shared

_Value = TypeVar("_Value", bound=Hashable)
_TUPLE_BYTES = sys.getsizeof(())


def _itself(value: Hashable) -> Hashable:
    return value


def size_of(value: Any) -> int:
    """About how long ``value``'s content is (its JSON length for structured values)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(len(key) + len(item) for key, item in value.items())
    return len(msgspec.json.encode(value))


def held_bytes(value: Any) -> int:
    """About how much memory an entry holding ``value`` keeps alive: objects and contents.

    A dict is counted with its key tuple and strings (the strings may be shared with
    the values table: counted twice, which errs on the side of a smaller table).
    """
    if isinstance(value, str):
        return sys.getsizeof(value)
    if isinstance(value, dict):
        strings = sum(sys.getsizeof(k) + sys.getsizeof(v) for k, v in value.items())
        return sys.getsizeof(value) + _TUPLE_BYTES + 16 * len(value) + strings
    return sys.getsizeof(value) + 2 * len(msgspec.json.encode(value))


class InternTable:
    """A bounded map to the one instance of each value that the cache shares.

    Entries are keyed by ``key_of(value)``: the value itself by default, or
    something hashable derived from it (for dicts, which are not hashable).
    Keys are always derived from the shared instance, never from the
    caller's copy, so the table holds no second copy of anything.
    """

    def __init__(
        self,
        capacity: int = DEFAULT_CAPACITY,
        key_of: Callable[[Any], Hashable] = _itself,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_item_bytes: int = DEFAULT_MAX_ITEM_BYTES,
    ) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity}")
        self._capacity = capacity
        self._key_of = key_of
        self._max_bytes = max_bytes
        self.max_item_bytes = max_item_bytes
        self._young: dict[Hashable, Any] = {}
        self._old: dict[Hashable, Any] = {}
        self._young_bytes = 0
        self._old_bytes = 0

    def __len__(self) -> int:
        return len(self._young) + len(self._old)

    @property
    def bytes_held(self) -> int:
        return self._young_bytes + self._old_bytes

    def intern(self, value: _Value) -> _Value:
        """The shared instance equal to ``value`` (``value`` itself the first time)."""
        found = self._young.get(value)  # the hot path: one probe
        if found is None:
            old = self._old.get(value)
            return self.add(value) if old is None else self.remember(old)
        return found  # type: ignore[no-any-return]

    def add(self, value: _Value) -> _Value:
        """``intern`` of a value the table does not hold (``lookup`` just missed): stored
        without a second look (two more hashes of a structured value)."""
        if size_of(value) > self.max_item_bytes:
            return value  # too large to be worth sharing, and it would fill the table
        shared: _Value = self.remember(value)
        return shared

    def lookup(self, key: Hashable) -> Any:
        """The shared instance remembered under ``key``, or None (a miss stores nothing)."""
        found = self._young.get(key)
        if found is None:
            found = self._old.get(key)
            if found is not None:
                self.remember(found)  # still in use: keep it through the next rotation
        return found

    def remember(self, value: Any) -> Any:
        """Make ``value`` the shared instance (rotating generations when full); return it."""
        size = held_bytes(value)
        if len(self._young) >= self._capacity or self._young_bytes + size > self._max_bytes:
            self._old, self._young = self._young, {}
            self._old_bytes, self._young_bytes = self._young_bytes, 0
        self._young[self._key_of(value)] = value
        self._young_bytes += size
        return value


class Sharing:
    """Makes objects share their repeated parts (see the module docstring)."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.values = InternTable(capacity)
        # A label or annotation dict is shared whole up to 16 KiB (a last-applied annotation
        # repeated by every Pod of a Deployment is worth it; a fresh 200 KB value is not).
        self.mappings = InternTable(capacity, key_of=_items_key, max_item_bytes=16 * 1024)

    def metadata(self, meta: ObjectMeta) -> ObjectMeta:
        """``meta`` sharing its namespace, labels, annotations and owner references."""
        return msgspec.structs.replace(
            meta,
            namespace=self.values.intern(meta.namespace),
            labels=self.mapping(meta.labels),
            annotations=self.mapping(meta.annotations),
            owner_references=self.values.intern(meta.owner_references),
        )

    def mapping(self, items: Mapping[str, str]) -> dict[str, str]:
        """The shared dict with these items (a plain dict, which nobody may mutate)."""
        found: dict[str, str] | None = self.mappings.lookup(_items_key(items))
        if found is None:
            intern = self.values.intern
            shared = {intern(k): intern(v) for k, v in items.items()}
            if size_of(shared) > self.mappings.max_item_bytes:
                return shared  # its keys (and short values) are shared; the dict is its own
            found = self.mappings.remember(shared)
        return found

    def conditions(self, conditions: tuple[Condition, ...]) -> tuple[Condition, ...]:
        return self.values.intern(conditions)


def _items_key(items: Mapping[str, str]) -> tuple[str, ...]:
    """Keys then values: one flat tuple, cheaper to build and hash than a tuple of pairs.

    Unambiguous: the length says where the keys end, and dict order is kept.
    """
    return (*items.keys(), *items.values())


def freeze_heap() -> int:
    """Collect garbage, then move every surviving object out of the cyclic GC's reach.

    Call once after the informers' initial lists are cached: later full
    collections then skip the cache and everything built at start-up.
    Collecting first matters: garbage cycles frozen with the rest would
    never be freed. Returns how many objects are now frozen.
    """
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
