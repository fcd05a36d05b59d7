"""The soak's changes: a fixed mix, applied to the stand-in's cluster.

Out of every 20 changes: 7 set a new ``seq`` on a starting Pod (the scale
bench's churn: the rule tells those of ``bench=1`` Pods), 5 set an
annotation to a value never used before, 3 a label likewise (neither is
told: update noise the service must ignore and forget), 2 create a Pod
with a new name, 2 delete the oldest one created, 1 turns a created Pod
Failed (a second rule tells each once). New values and names on every
change are the hard case for a cache that shares strings: they must not
pile up.
"""

from __future__ import annotations

import json
import random
import uuid
from collections import Counter, deque
from typing import Any

import msgspec

from bench.scale.standin import Churn
from bench.scale.store import Cluster, Event, Key

MIX = ("seq",) * 7 + ("annotation",) * 5 + ("label",) * 3 + ("create",) * 2 + ("delete",) * 2 + (
    "fail",
)  # fmt: skip
LIVE_CREATED = 500  # created Pods kept at most: the oldest goes first


def change_kind(number: int) -> str:
    """What change ``number`` (from 0) does."""
    return MIX[number % len(MIX)]


class SoakChurn:
    def __init__(self, cluster: Cluster, seed: int) -> None:
        self.cluster = cluster
        self.pods = cluster.collections["pods"]
        self.seq = Churn(cluster, seed)
        self.stable: list[Key] = list(self.seq.order)
        self.rng = random.Random(seed)
        self.template: dict[str, Any] = json.loads(self.pods.objects[self.stable[0]])
        self.created: deque[Key] = deque()
        self.failed: set[Key] = set()
        self.counts: Counter[str] = Counter()
        self.matching: list[int] = []  # seqs the seq rule must tell
        self.made = 0

    def change(self) -> list[Event]:
        """One change (two when a create makes room by deleting the oldest created Pod)."""
        kind = change_kind(self.made)
        self.made += 1
        if (kind == "delete" and not self.created) or (kind == "fail" and not self._failable()):
            kind = "create"
        self.counts[kind] += 1
        made: list[Event] = []
        if kind == "create" and len(self.created) >= LIVE_CREATED:
            self.counts["delete"] += 1
            made.append(self._delete())
        made.append(getattr(self, f"_{kind}")())
        return made

    def _seq(self) -> Event:
        event, matches = self.seq.change()
        if matches:
            self.matching.append(self.seq.made)
        return event

    def _annotation(self) -> Event:
        value = f"n{self.made}-{uuid.uuid4().hex}"
        return self._edit(self._stable(), ("metadata", "annotations", "soak.example/note"), value)

    def _label(self) -> Event:
        return self._edit(
            self._stable(), ("metadata", "labels", "soak.example/rev"), f"r{self.made}"
        )

    def _create(self) -> Event:
        namespace = self._stable()[0]
        name = f"soak-{self.made}-{uuid.uuid4().hex[:6]}"
        document = json.loads(json.dumps(self.template))
        meta = document["metadata"]
        meta.update(name=name, namespace=namespace, uid=str(uuid.uuid4()), resourceVersion="0")
        meta["labels"] = {"app": "soak", "soak": "1"}
        meta.pop("annotations", None)
        meta.pop("ownerReferences", None)
        key = (namespace, name)
        self.created.append(key)
        return self.cluster.add("pods", key, msgspec.json.encode(document))

    def _delete(self) -> Event:
        key = self.created.popleft()
        self.failed.discard(key)
        return self.cluster.delete("pods", key)

    def _fail(self) -> Event:
        key = next(k for k in self.created if k not in self.failed)
        self.failed.add(key)
        return self._edit(key, ("status", "phase"), "Failed")

    def _failable(self) -> bool:
        return any(k not in self.failed for k in self.created)

    def _stable(self) -> Key:
        return self.stable[self.rng.randrange(len(self.stable))]

    def _edit(self, key: Key, path: tuple[str, ...], value: str) -> Event:
        document = json.loads(self.pods.objects[key])
        place = document
        for step in path[:-1]:
            place = place.setdefault(step, {})
        place[path[-1]] = value
        return self.cluster.modify("pods", key, msgspec.json.encode(document))
