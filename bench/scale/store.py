"""What the stand-in holds: objects as JSON bytes, one resourceVersion counter, recent history.

Plain synchronous data, no HTTP (``standin`` serves it): a ``Collection``
per resource keeps its objects in key order for ``limit``/``continue``
pages, and the watch events of the last ``history`` changes, so a watch
from a resourceVersion replays what came after it. Asking for a
resourceVersion older than what the history still holds (it was
compacted, or the stand-in was told to forget) raises ``GoneError``, which
the server answers with 410 Expired, as kube-apiserver does.

As etcd, one counter orders every change of every resource (``Cluster``).
As kube-apiserver, the pages of a list are a snapshot at the first page's
resourceVersion: a list that has more pages keeps the rest of its keys and
objects as they were (``Snapshot``), so changes made while it is read (the
soak churns through its relists) come only as watch events after that
version. Without it, a later page could serve an object newer than the
list's version and the watch would then replay the object's older events
over it. A continue token older than the history, or whose snapshot was
let go (``SNAPSHOTS`` lists in flight at most), gets 410 as a compacted one
would.
"""

from __future__ import annotations

import base64
import bisect
import json
from dataclasses import dataclass, field

import msgspec

Key = tuple[str, str]  # namespace, name
_HIGHEST = "\U0010ffff"
SNAPSHOTS = 16  # lists in flight whose later pages are kept; an older one's continue gets 410


class GoneError(Exception):
    """The resourceVersion asked for is older than the history kept."""


@dataclass(frozen=True)
class Event:
    version: int
    namespace: str
    line: bytes  # one watch event, no newline


@dataclass(frozen=True)
class Page:
    items: list[bytes]
    version: int
    continue_token: str
    remaining: int


def _version_field(version: int) -> bytes:
    return b'"resourceVersion":"%d"' % version


def with_version(document: bytes, old: int, new: int) -> bytes:
    return document.replace(_version_field(old), _version_field(new), 1)


def encode_token(version: int, last: Key) -> str:
    raw = json.dumps({"v": "meta.k8s.io/v1", "rv": version, "start": f"{last[0]}/{last[1]}\x00"})
    return base64.urlsafe_b64encode(raw.encode()).decode()


def decode_token(token: str) -> tuple[int, Key]:
    """The list's resourceVersion and the last key served; ValueError when malformed."""
    try:
        raw = json.loads(base64.urlsafe_b64decode(token.encode()))
        namespace, name = str(raw["start"]).rstrip("\x00").split("/", 1)
        return int(raw["rv"]), (namespace, name)
    except (KeyError, TypeError, ValueError, UnicodeDecodeError) as err:
        raise ValueError(f"invalid continue token: {err}") from err


@dataclass(frozen=True)
class Snapshot:
    """What a list's later pages serve: its keys after the first page, and their objects then.

    Kept per list version and namespace, so a page asked again (a retry) is served again."""

    keys: list[Key]
    objects: dict[Key, bytes]


@dataclass
class Collection:
    kind: str
    api_version: str
    history: int = 50_000
    objects: dict[Key, bytes] = field(default_factory=dict)
    versions: dict[Key, int] = field(default_factory=dict)
    compacted: int = 0  # a watch or a continue from below this version is gone
    _keys: list[Key] = field(default_factory=list)
    _events: list[Event] = field(default_factory=list)
    _event_versions: list[int] = field(default_factory=list)
    _snapshots: dict[tuple[int, str | None], Snapshot] = field(default_factory=dict)

    def event_line(self, event_type: str, document: bytes) -> bytes:
        head = b'{"type":"%s","object":{"kind":"%s","apiVersion":"%s",' % (
            event_type.encode(),
            self.kind.encode(),
            self.api_version.encode(),
        )
        return head + document[1:] + b"}"

    def load(self, key: Key, document: bytes, version: int) -> None:
        """An object that exists from the start (no event: it is before any watch)."""
        self.objects[key] = with_version(document, 1, version)
        self.versions[key] = version
        bisect.insort(self._keys, key)
        self.compacted = max(self.compacted, version)

    def modify(self, key: Key, document: bytes, version: int) -> Event:
        """``document`` (written at the object's current version) becomes ``version``."""
        updated = with_version(document, self.versions[key], version)
        self.objects[key], self.versions[key] = updated, version
        event = Event(version, key[0], self.event_line("MODIFIED", updated))
        self._remember(event)
        return event

    def add(self, key: Key, document: bytes, version: int) -> Event:
        """A new object; ``document`` is written with resourceVersion "0", given ``version``."""
        created = with_version(document, 0, version)
        self.objects[key], self.versions[key] = created, version
        bisect.insort(self._keys, key)
        event = Event(version, key[0], self.event_line("ADDED", created))
        self._remember(event)
        return event

    def delete(self, key: Key, version: int) -> Event:
        """The object goes; its DELETED event carries its last state at ``version``."""
        gone = with_version(self.objects.pop(key), self.versions.pop(key), version)
        del self._keys[bisect.bisect_left(self._keys, key)]
        event = Event(version, key[0], self.event_line("DELETED", gone))
        self._remember(event)
        return event

    def _remember(self, event: Event) -> None:
        self._events.append(event)
        self._event_versions.append(event.version)
        if len(self._events) > 2 * self.history:  # trim in halves: amortized O(1)
            self.forget(self._event_versions[-self.history - 1])

    def forget(self, version: int) -> None:
        """Drop history up to ``version``: resuming from before it gets 410."""
        cut = bisect.bisect_right(self._event_versions, version)
        del self._events[:cut], self._event_versions[:cut]
        self.compacted = max(self.compacted, version)

    def since(self, version: int, namespace: str | None) -> list[Event]:
        if version < self.compacted:
            raise GoneError(f"too old resource version: {version} ({self.compacted})")
        start = bisect.bisect_right(self._event_versions, version)
        return [e for e in self._events[start:] if namespace is None or e.namespace == namespace]

    def _range(self, namespace: str | None) -> tuple[int, int]:
        if namespace is None:
            return 0, len(self._keys)
        low = bisect.bisect_left(self._keys, (namespace, ""))
        return low, bisect.bisect_right(self._keys, (namespace, _HIGHEST))

    def page(self, namespace: str | None, limit: int, token: str, current: int) -> Page:
        """One page of a list, ``limit`` items (0: all), after the key in ``token``."""
        if not token:
            low, high = self._range(namespace)
            keys = self._keys[low:high]
            end = len(keys) if limit <= 0 else min(len(keys), limit)
            if end < len(keys):  # later pages will be asked for: keep them as they are now
                later = keys[end:]
                self._keep(
                    (current, namespace), Snapshot(later, {k: self.objects[k] for k in later})
                )
            return self._page(current, keys[:end], self.objects, len(keys) - end)
        version, last = decode_token(token)
        snapshot = self._snapshots.get((version, namespace))
        if version < self.compacted or snapshot is None:
            raise GoneError("The provided continue parameter is too old")
        start = bisect.bisect_right(snapshot.keys, last)
        end = len(snapshot.keys) if limit <= 0 else min(len(snapshot.keys), start + limit)
        return self._page(
            version, snapshot.keys[start:end], snapshot.objects, len(snapshot.keys) - end
        )

    def _keep(self, list_at: tuple[int, str | None], snapshot: Snapshot) -> None:
        self._snapshots[list_at] = snapshot
        while len(self._snapshots) > SNAPSHOTS:
            del self._snapshots[next(iter(self._snapshots))]

    @staticmethod
    def _page(version: int, keys: list[Key], objects: dict[Key, bytes], remaining: int) -> Page:
        following = encode_token(version, keys[-1]) if remaining else ""
        return Page([objects[key] for key in keys], version, following, remaining)

    def all_items(self, namespace: str | None) -> list[bytes]:
        low, high = self._range(namespace)
        return [self.objects[key] for key in self._keys[low:high]]


RESOURCES = {  # plural -> kind, apiVersion
    "pods": ("Pod", "v1"),
    "deployments": ("Deployment", "apps/v1"),
    "services": ("Service", "v1"),
}


@dataclass
class Cluster:
    collections: dict[str, Collection]
    version: int = 0

    @classmethod
    def empty(cls, history: int = 50_000) -> Cluster:
        made = {plural: Collection(*kind, history=history) for plural, kind in RESOURCES.items()}
        return cls(made)

    def load(self, plural: str, key: Key, document: bytes) -> None:
        self.version += 1
        self.collections[plural].load(key, document, self.version)

    def modify(self, plural: str, key: Key, document: bytes) -> Event:
        self.version += 1
        return self.collections[plural].modify(key, document, self.version)

    def add(self, plural: str, key: Key, document: bytes) -> Event:
        self.version += 1
        return self.collections[plural].add(key, document, self.version)

    def delete(self, plural: str, key: Key) -> Event:
        self.version += 1
        return self.collections[plural].delete(key, self.version)

    def forget_history(self) -> None:
        """What a compaction does: every older resourceVersion is gone from now on."""
        for collection in self.collections.values():
            collection.forget(self.version)


def list_body(collection: Collection, page: Page) -> bytes:
    meta: dict[str, object] = {"resourceVersion": str(page.version)}
    if page.continue_token:
        meta["continue"] = page.continue_token
        meta["remainingItemCount"] = page.remaining
    head = b'{"kind":"%sList","apiVersion":"%s","metadata":%s,"items":[' % (
        collection.kind.encode(),
        collection.api_version.encode(),
        msgspec.json.encode(meta),
    )
    return head + b",".join(page.items) + b"]}"


def status_body(code: int, reason: str, message: str) -> bytes:
    return msgspec.json.encode(
        {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": message,
            "reason": reason,
            "code": code,
        }
    )


def expired_line(message: str) -> bytes:
    """The ERROR event kube-apiserver sends on a watch from a compacted resourceVersion."""
    return b'{"type":"ERROR","object":%s}' % status_body(410, "Expired", message)


BOOKMARK_STUBS = {  # what kube-apiserver puts beside the resourceVersion in a bookmark
    "Pod": b'"spec":{"containers":null},"status":{}',
    "Deployment": b'"spec":{"selector":null,"template":{"metadata":{"creationTimestamp":null},'
    b'"spec":{"containers":null}},"strategy":{}},"status":{}',
    "Service": b'"spec":{},"status":{"loadBalancer":{}}',
}


def bookmark_line(collection: Collection, version: int) -> bytes:
    document = b'{"metadata":{"resourceVersion":"%d","creationTimestamp":null},%s}' % (
        version,
        BOOKMARK_STUBS[collection.kind],
    )
    return collection.event_line("BOOKMARK", document)
