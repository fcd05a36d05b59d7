"""Every kind the service knows, and the lookups generic code dispatches through.

Adding a built-in kind is one module in ``notifier.kinds`` (its Struct and
its ``KindSpec``), one line in ``BUILT_IN`` and its tests; the source,
transitions, rule facts, ``rules check``, docs/transitions.md and the
chart's RBAC follow from the registry.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

from notifier.kinds.cronjob import CRONJOB
from notifier.kinds.daemonset import DAEMONSET
from notifier.kinds.deployment import DEPLOYMENT
from notifier.kinds.event import EVENT
from notifier.kinds.hpa import HPA
from notifier.kinds.job import JOB
from notifier.kinds.node import NODE
from notifier.kinds.pod import POD
from notifier.kinds.pvc import PVC
from notifier.kinds.service import SERVICE
from notifier.kinds.sharing import Sharing
from notifier.kinds.spec import KindSpec
from notifier.kinds.statefulset import STATEFULSET
from notifier.objects import Kind, KubeObject

T = TypeVar("T", bound=KubeObject)

BUILT_IN: tuple[KindSpec[Any], ...] = (
    POD, DEPLOYMENT, SERVICE, JOB, CRONJOB, STATEFULSET, DAEMONSET, NODE, PVC, HPA, EVENT
)  # fmt: skip

BUILT_IN_KINDS: tuple[Kind, ...] = tuple(spec.kind for spec in BUILT_IN)
KINDS: dict[Kind, KindSpec[Any]] = {spec.kind: spec for spec in BUILT_IN}
_BY_TYPE: dict[type, KindSpec[Any]] = {spec.struct: spec for spec in BUILT_IN}
_decoding: list[Any] = []  # [the union of every kind's Struct, its JSON decoder]


def register(spec: KindSpec[Any]) -> None:
    """Know a custom resource's kind from now on (``watch.resources``, read at load).

    A kind declared again (a reload) replaces its earlier spec; objects already
    decoded keep theirs. A built-in kind cannot be replaced.
    """
    if spec.kind in KINDS and KINDS[spec.kind] in BUILT_IN:
        raise ValueError(f"{spec.kind} is a built-in kind")
    KINDS[spec.kind] = spec
    _BY_TYPE[spec.struct] = spec
    _decoding.clear()


def _union() -> Any:
    """Every kind's Struct, built again after a registration."""
    if not _decoding:
        structs: Any = KubeObject
        for spec in KINDS.values():
            structs = spec.struct if structs is KubeObject else structs | spec.struct
        _decoding.extend([structs, msgspec.json.Decoder(structs)])
    return _decoding[0]


def spec_for(kind: Kind) -> KindSpec[Any]:
    return KINDS[kind]


def known(kind: str) -> bool:
    return kind in KINDS


def spec_of(obj: KubeObject) -> KindSpec[Any]:
    return _BY_TYPE[type(obj)]


def share(sharing: Sharing, obj: T) -> T:
    """An object equal to ``obj`` whose repeated parts are shared with earlier objects."""
    shared: T = spec_of(obj).share(sharing, obj)
    return shared


def decode_object(encoded: bytes) -> KubeObject:
    """Any kind's Struct back from its JSON (the kind is in it); raises ``msgspec.DecodeError``."""
    _union()
    obj: KubeObject = _decoding[1].decode(encoded)
    return obj


def convert_object(data: Any) -> KubeObject:
    """Any kind's Struct from decoded JSON (a dict with its ``kind``)."""
    obj: KubeObject = msgspec.convert(data, type=_union())
    return obj


def severities() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Critical then warning state names of every kind, most pressing first, no repeats."""
    critical = dict.fromkeys(name for spec in KINDS.values() for name in spec.critical)
    warning = [name for spec in KINDS.values() for name in spec.warning if name not in critical]
    return tuple(critical), tuple(dict.fromkeys([*warning, "Deleted"]))
