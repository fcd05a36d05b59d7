"""Every kind the service knows, as a value: the built-in ones, and those a config declares.

Adding a built-in kind is one module in ``notifier.kinds`` (its Struct and
its ``KindSpec``), one line in ``BUILT_IN`` and its tests; the source,
transitions, rule facts, ``rules check``, docs/transitions.md and the
chart's RBAC follow from the registry.

A config's ``Kinds`` (``KINDS`` plus its ``watch.resources``) is made once
when the config is loaded and handed to the parts that need it (the rules'
compiler, the informers, the state's decoder); loading or refusing a config
changes nothing anyone else holds. An object finds its own spec through its
Struct's type (``spec_of``), so a running informer's objects keep the spec
they were decoded with.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypeVar

import msgspec

from notifier.kinds.cronjob import CRONJOB
from notifier.kinds.daemonset import DAEMONSET
from notifier.kinds.deployment import DEPLOYMENT
from notifier.kinds.event import EVENT
from notifier.kinds.hpa import HPA
from notifier.kinds.job import JOB
from notifier.kinds.node import NODE
from notifier.kinds.pdb import PDB
from notifier.kinds.pod import POD
from notifier.kinds.pvc import PVC
from notifier.kinds.service import SERVICE
from notifier.kinds.sharing import Sharing
from notifier.kinds.spec import ApiResource, KindSpec
from notifier.kinds.statefulset import STATEFULSET
from notifier.objects import Kind, KubeObject

T = TypeVar("T", bound=KubeObject)

BUILT_IN: tuple[KindSpec[Any], ...] = (
    POD, DEPLOYMENT, SERVICE, JOB, CRONJOB, STATEFULSET, DAEMONSET, NODE, PVC, HPA, PDB, EVENT
)  # fmt: skip

BUILT_IN_KINDS: tuple[Kind, ...] = tuple(spec.kind for spec in BUILT_IN)
_BY_TYPE: dict[type, KindSpec[Any]] = {spec.struct: spec for spec in BUILT_IN}
_SPEC_ATTRIBUTE = "__kind_spec__"  # on a custom resource's Struct: the spec it was made for


class Kinds(Mapping[Kind, KindSpec[Any]]):
    """The kinds one config knows: never changed once made."""

    def __init__(self, specs: Iterable[KindSpec[Any]]) -> None:
        self._specs: dict[Kind, KindSpec[Any]] = {spec.kind: spec for spec in specs}

    def __getitem__(self, kind: Kind) -> KindSpec[Any]:
        return self._specs[kind]

    def __iter__(self) -> Iterator[Kind]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def __eq__(self, other: object) -> bool:
        return self is other  # a value made once per config: the same config's is the same one

    def __hash__(self) -> int:
        return id(self)

    def declaring(self, custom: Iterable[KindSpec[Any]]) -> Kinds:
        """These kinds and the custom resources ``custom`` (a config's ``watch.resources``)."""
        made = list(custom)
        for spec in made:
            if spec.kind in BUILT_IN_KINDS:
                raise ValueError(f"{spec.kind} is a built-in kind")
            setattr(spec.struct, _SPEC_ATTRIBUTE, spec)
        return Kinds([*self._specs.values(), *made])

    def states_for(self, kind: Kind) -> frozenset[str]:
        return frozenset(self._specs[kind].states)

    def signals_for(self, kind: Kind) -> frozenset[str]:
        return frozenset(self._specs[kind].all_signals)

    def names_for(self, kind: Kind) -> frozenset[str]:
        """Every word a rule may use in ``from`` / ``to`` for ``kind``."""
        return self._specs[kind].names

    @functools.cached_property
    def all(self) -> frozenset[Kind]:
        return frozenset(self._specs)  # one set: each rule compiled asks for it

    @functools.cached_property
    def _union(self) -> tuple[Any, msgspec.json.Decoder[Any]]:
        structs: Any = KubeObject
        for spec in self._specs.values():
            structs = spec.struct if structs is KubeObject else structs | spec.struct
        return structs, msgspec.json.Decoder(structs)

    def decode_object(self, encoded: bytes) -> KubeObject:
        """Any of these kinds' Struct from its JSON (the kind is in it); raises ``DecodeError``."""
        obj: KubeObject = self._union[1].decode(encoded)
        return obj

    def convert_object(self, data: Any) -> KubeObject:
        """Any of these kinds' Struct from decoded JSON (a dict with its ``kind``)."""
        obj: KubeObject = msgspec.convert(data, type=self._union[0])
        return obj


KINDS = Kinds(BUILT_IN)
"""The built-in kinds: what a config with no ``watch.resources`` knows."""


def spec_of(obj: KubeObject) -> KindSpec[Any]:
    """The spec ``obj`` was decoded with (its Struct's)."""
    spec = _BY_TYPE.get(type(obj))
    if spec is None:
        found: KindSpec[Any] = getattr(type(obj), _SPEC_ATTRIBUTE)
        return found
    return spec


def spec_for(kind: Kind) -> KindSpec[Any]:
    return KINDS[kind]


def owner_resource(kind: str, *, kinds: Kinds) -> ApiResource | None:
    """Where an owner named by an ``ownerReference`` is served: a kind known here, or one
    a kind says owns its objects (a Pod's ReplicaSet); None for a kind we cannot place."""
    if kind in kinds:
        return kinds[Kind(kind)].api
    return next((spec.owned_by[kind] for spec in kinds.values() if kind in spec.owned_by), None)


def owner_resources(*, kinds: Kinds) -> list[ApiResource]:
    """Every resource an owner chain may have to read: the workloads and what owns objects."""
    found = [spec.api for spec in kinds.values() if spec.workload]
    found += [api for spec in kinds.values() for api in spec.owned_by.values()]
    return list(dict.fromkeys(found))


def known(kind: str) -> bool:
    return kind in KINDS


def share(sharing: Sharing, obj: T) -> T:
    """An object equal to ``obj`` whose repeated parts are shared with earlier objects."""
    shared: T = spec_of(obj).share(sharing, obj)
    return shared


def decode_object(encoded: bytes) -> KubeObject:
    """A built-in kind's Struct back from its JSON; raises ``msgspec.DecodeError``."""
    return KINDS.decode_object(encoded)


def convert_object(data: Any) -> KubeObject:
    """A built-in kind's Struct from decoded JSON (a dict with its ``kind``)."""
    return KINDS.convert_object(data)


def severities(*, kinds: Kinds) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Critical then warning state names of every kind, most pressing first, no repeats."""
    critical = dict.fromkeys(name for spec in kinds.values() for name in spec.critical)
    warning = [name for spec in kinds.values() for name in spec.warning if name not in critical]
    return tuple(critical), tuple(dict.fromkeys([*warning, "Deleted"]))
