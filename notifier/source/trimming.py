"""Last trims after decoding: drop what the Struct kept but nobody reads, share the rest.

msgspec already skipped every field the Structs do not declare. What is
left to drop is data inside declared fields, such as the
``kubectl.kubernetes.io/last-applied-configuration`` annotation (a full
copy of the object, often kilobytes). Then the object's repeated parts
(namespace, labels, images, conditions...) are swapped for the copies
earlier objects hold (``notifier.kinds.sharing``), which is what keeps
a cached Pod at about 0.8 KB instead of 4.2 (``bench/source_bench.py``).

``trim`` returns an equal object (less the dropped annotations); it never
mutates its argument.
"""

from __future__ import annotations

import msgspec

from notifier.kinds.registry import share
from notifier.kinds.sharing import Sharing
from notifier.objects import KubeObject

DROPPED_ANNOTATIONS = frozenset({"kubectl.kubernetes.io/last-applied-configuration"})

# One table for the whole process: Pods of every informer share namespaces and labels.
SHARED = Sharing()


def trim(obj: KubeObject) -> KubeObject:
    return share(SHARED, _without_dropped_annotations(obj))


def _without_dropped_annotations(obj: KubeObject) -> KubeObject:
    annotations = obj.metadata.annotations
    if not annotations or DROPPED_ANNOTATIONS.isdisjoint(annotations):
        return obj
    kept = {k: v for k, v in annotations.items() if k not in DROPPED_ANNOTATIONS}
    meta = msgspec.structs.replace(obj.metadata, annotations=kept)
    return msgspec.structs.replace(obj, metadata=meta)
