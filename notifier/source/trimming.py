"""Last trims after decoding: drop what the Struct kept but nobody reads.

msgspec already skipped every field the Structs do not declare. What is
left to drop is data inside declared fields, such as the
``kubectl.kubernetes.io/last-applied-configuration`` annotation (a full
copy of the object, often kilobytes).
"""

from __future__ import annotations

import msgspec

from notifier.objects import KubeObject

DROPPED_ANNOTATIONS = frozenset({"kubectl.kubernetes.io/last-applied-configuration"})


def trim(obj: KubeObject) -> KubeObject:
    annotations = obj.metadata.annotations
    if not annotations or DROPPED_ANNOTATIONS.isdisjoint(annotations):
        return obj
    kept = {k: v for k, v in annotations.items() if k not in DROPPED_ANNOTATIONS}
    meta = msgspec.structs.replace(obj.metadata, annotations=kept)
    return msgspec.structs.replace(obj, metadata=meta)
