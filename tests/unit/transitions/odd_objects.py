"""Hypothesis strategies for odd objects: any shape our Structs accept from the wire.

The strategies are derived from the Structs' own schema (``msgspec.inspect``),
so a field added to a kind in notifier/kinds/ is exercised without touching this
file. Every field is optional; strings come from a pool of real Kubernetes
words (phases, reasons, condition types, container names) mixed with junk,
so that generated pairs share container names and hit the interesting paths.
A second family starts from the recorded fixtures and perturbs them (drops
fields, swaps values for odd ones of the same JSON type), which reaches deep
states such as CrashLoopBackOff that random trees almost never build.
Dicts are turned into objects with ``msgspec.convert``, as the informers decode JSON.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
import msgspec.inspect as mi
from hypothesis import strategies as st

from notifier.kinds.deployment import Deployment
from notifier.kinds.pod import Pod
from notifier.kinds.registry import BUILT_IN, KINDS
from notifier.kinds.service import Service
from notifier.objects import Kind, KubeObject
from tests.unit.transitions.recorded import FIXTURES, documents

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
    "Complete",
    "Suspended",
    "BackoffLimitExceeded",
    "OnDelete",
    "MemoryPressure",
    "Bound",
    "Lost",
    "ScalingLimited",
    "TooManyReplicas",
    "AbleToScale",
    "ScalingActive",
)

texts = st.one_of(st.sampled_from(KUBE_WORDS), st.text(max_size=12))
int64s = st.one_of(st.integers(-2, 6), st.integers(-(2**63), 2**63 - 1))


def huge_maps() -> st.SearchStrategy[dict[str, str]]:
    """Label sets of up to a few thousand keys, cheap to generate."""
    return st.integers(0, 3000).map(lambda n: {f"example.com/key-{i}": str(i) for i in range(n)})


def maps() -> st.SearchStrategy[dict[str, str]]:
    return st.one_of(st.dictionaries(texts, texts, max_size=3), huge_maps())


def wire(info: mi.Type) -> st.SearchStrategy[Any]:
    """A strategy for the JSON-like value ``info`` decodes from."""
    if isinstance(info, mi.StructType):
        fields = {field.encode_name: wire(field.type) for field in info.fields}
        return st.fixed_dictionaries({}, optional=fields)
    if isinstance(info, mi.UnionType):
        return st.one_of([wire(member) for member in info.types])
    if isinstance(info, mi.VarTupleType):
        return st.lists(wire(info.item_type), max_size=2)
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


def any_object() -> st.SearchStrategy[KubeObject]:
    """An object of any kind the registry knows."""
    return st.one_of([_objects(spec.struct) for spec in BUILT_IN])


def _objects(kind: type[KubeObject]) -> st.SearchStrategy[KubeObject]:
    return wire(mi.type_info(kind)).map(lambda raw: msgspec.convert(raw, type=kind))


def pairs() -> st.SearchStrategy[tuple[Any, Any]]:
    """Two versions of one object: random trees, or perturbed versions of a recorded stream."""
    random_trees = st.one_of([_pairs(spec.struct) for spec in BUILT_IN])
    return st.one_of(random_trees, recorded_pairs())


def recorded_pairs() -> st.SearchStrategy[tuple[Any, Any]]:
    streams = sorted(path.stem for path in FIXTURES.glob("*.yaml"))
    return st.sampled_from(streams).flatmap(_perturbed_pair)


def _perturbed_pair(stream: str) -> st.SearchStrategy[tuple[Any, Any]]:
    docs = documents(stream)
    kind = KINDS[Kind(docs[0]["kind"])].struct
    version = st.sampled_from(docs).flatmap(perturbed)
    return st.tuples(version, version).map(
        lambda raw: (msgspec.convert(raw[0], type=kind), msgspec.convert(raw[1], type=kind))
    )


@st.composite
def perturbed(draw: st.DrawFn, document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with about one node in sixteen dropped or given an odd value."""
    body = {key: _perturb(draw, value) for key, value in document.items() if key != "kind"}
    return {"kind": document["kind"], **body}


def _perturb(draw: st.DrawFn, value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _perturb(draw, item) for key, item in value.items() if _keep(draw)}
    if isinstance(value, list):
        return [_perturb(draw, item) for item in value if _keep(draw)]
    if draw(st.integers(0, 15)) != 0:
        return value
    return draw(_odd_like(value))


def _keep(draw: st.DrawFn) -> bool:
    return draw(st.integers(0, 15)) != 0


def _odd_like(value: Any) -> st.SearchStrategy[Any]:
    """An odd value of the same JSON type, so the object still decodes."""
    if isinstance(value, bool):
        return st.booleans()
    if isinstance(value, int):
        return int64s
    if isinstance(value, str):
        return texts
    return st.just(value)


def _pairs(kind: type[KubeObject]) -> st.SearchStrategy[tuple[KubeObject, KubeObject]]:
    independent = st.tuples(_objects(kind), _objects(kind))
    return st.one_of(independent, independent.map(_share_one_section))


def _share_one_section(pair: tuple[KubeObject, KubeObject]) -> tuple[KubeObject, KubeObject]:
    """Keep ``old``'s metadata and spec in ``new``: only the status differs, as in most events."""
    old, new = pair
    kept = {"metadata": old.metadata}
    if hasattr(old, "spec"):
        kept["spec"] = old.spec
    return old, msgspec.structs.replace(new, **kept)
