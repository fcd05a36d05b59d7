"""Hypothesis strategies for odd objects: any shape our Structs accept from the wire.

The strategies are derived from the Structs' own schema (``msgspec.inspect``),
so a field added to notifier/objects.py is exercised without touching this
file. Every field is optional; strings come from a pool of real Kubernetes
words (phases, reasons, condition types, container names) mixed with junk,
so that generated pairs share container names and hit the interesting paths.
Dicts are built with ``msgspec.convert`` exactly as the informers decode JSON.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
import msgspec.inspect as mi
from hypothesis import strategies as st

from notifier.objects import Deployment, Pod, Service

_Object = TypeVar("_Object", Pod, Deployment, Service)

KUBE_WORDS = (
    "",
    "web",
    "sidecar",
    "True",
    "False",
    "Unknown",
    "Pending",
    "Running",
    "Succeeded",
    "Failed",
    "Hibernating",
    "Ready",
    "Available",
    "Progressing",
    "ReplicaFailure",
    "NewReplicaSetAvailable",
    "ProgressDeadlineExceeded",
    "CrashLoopBackOff",
    "ImagePullBackOff",
    "ErrImagePull",
    "CreateContainerConfigError",
    "OOMKilled",
    "Evicted",
    "ReplicaSet",
    "Job",
    "pod-template-hash",
    "web-7d4b9c6f5d",
    "7d4b9c6f5d",
    "2024-05-14T09:12:03Z",
    "kubectl.kubernetes.io/last-applied-configuration",
)

texts = st.one_of(st.sampled_from(KUBE_WORDS), st.text(max_size=12))
int64s = st.one_of(st.integers(-2, 6), st.integers(-(2**63), 2**63 - 1))


def huge_maps() -> st.SearchStrategy[dict[str, str]]:
    """Label sets of up to a few thousand keys, cheap to generate."""
    return st.integers(0, 3000).map(lambda n: {f"example.com/key-{i}": str(i) for i in range(n)})


def maps() -> st.SearchStrategy[dict[str, str]]:
    return st.one_of(st.dictionaries(texts, texts, max_size=4), huge_maps())


def wire(info: mi.Type) -> st.SearchStrategy[Any]:
    """A strategy for the JSON-like value ``info`` decodes from."""
    if isinstance(info, mi.StructType):
        fields = {field.encode_name: wire(field.type) for field in info.fields}
        return st.fixed_dictionaries({}, optional=fields)
    if isinstance(info, mi.UnionType):
        return st.one_of([wire(member) for member in info.types])
    if isinstance(info, mi.VarTupleType):
        return st.lists(wire(info.item_type), max_size=3)
    if isinstance(info, mi.DictType):
        return maps()
    return _scalar(info)


def _scalar(info: mi.Type) -> st.SearchStrategy[Any]:
    scalars: dict[type[mi.Type], st.SearchStrategy[Any]] = {
        mi.StrType: texts,
        mi.IntType: int64s,
        mi.BoolType: st.booleans(),
        mi.NoneType: st.none(),
    }
    return scalars[type(info)]


def objects(kind: type[_Object]) -> st.SearchStrategy[_Object]:
    return wire(mi.type_info(kind)).map(lambda raw: msgspec.convert(raw, type=kind))


def any_object() -> st.SearchStrategy[Pod | Deployment | Service]:
    return st.one_of(objects(Pod), objects(Deployment), objects(Service))


def pairs() -> st.SearchStrategy[tuple[Any, Any]]:
    """Two versions of one kind: independent, or the second sharing the first's spec or status."""
    return st.one_of(_pairs(Pod), _pairs(Deployment), _pairs(Service))


def _pairs(kind: type[_Object]) -> st.SearchStrategy[tuple[_Object, _Object]]:
    independent = st.tuples(objects(kind), objects(kind))
    return st.one_of(independent, independent.map(_share_one_section))


def _share_one_section(pair: tuple[_Object, _Object]) -> tuple[_Object, _Object]:
    """Keep ``old``'s metadata and spec in ``new``: only the status differs, as in most events."""
    old, new = pair
    return old, msgspec.structs.replace(new, metadata=old.metadata, spec=old.spec)
