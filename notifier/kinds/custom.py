"""A kind made from ``watch.resources``: any API resource, its states read from its fields.

The Struct is built for the resource from the paths its states and message
read, so only those fields are decoded and kept (plus the metadata every
object has): a Certificate's spec and most of its status never reach
memory. A field's value is kept only when it is a string, number, boolean
or null; anything else (a path that names an object or a list) is kept as
at most ``MAX_TEXT`` characters of its JSON. Conditions are read as the
built-in kinds read them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

import msgspec

from notifier.kinds.config import MessageSpec, ResourceSpec, StateSpec, describe
from notifier.kinds.diffing import Diff
from notifier.kinds.sharing import Sharing
from notifier.kinds.spec import ApiResource, Facts, KindSpec, facts
from notifier.kinds.workload import condition
from notifier.objects import Condition, KubeObject

MAX_TEXT = 256
CONDITIONS = "status.conditions"
_SCALARS = (str, int, float, bool, type(None))
Tree = dict[str, Any]  # a path's parts: a nested Tree, or None for a leaf


def custom_kind(resource: ResourceSpec) -> KindSpec[Any]:
    struct = _struct(resource)
    return KindSpec(
        kind=resource.kind,
        struct=struct,
        api=ApiResource(resource.group, resource.version, resource.resource, resource.namespaced),
        summary=f"a custom resource ({resource.resource}.{resource.group or 'core'}), "
        "states from its fields",
        states={name: describe(spec) for name, spec in resource.states.items()},
        signals={},
        states_of=lambda obj: _states(resource, obj),
        diff=lambda diff, old, new: _diff(resource, diff, old, new),
        facts=lambda obj, old: _facts(resource.message, obj),
        share=lambda sharing, obj: _share(resource, sharing, obj),
        critical=tuple(resource.critical),
        warning=tuple(resource.warning),
    )


def value_at(obj: Any, path: str) -> Any:
    """The decoded value at a dotted path; None where any part is missing."""
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _struct(resource: ResourceSpec) -> type[KubeObject]:
    tree: Tree = {}
    for path in resource.paths():
        node = tree
        *parents, leaf = path.split(".")
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                break
        else:
            node.setdefault(leaf, None)
    fields = _fields(tree, resource.kind)
    made = msgspec.defstruct(
        str(resource.kind), fields, bases=(KubeObject,), tag=resource.kind.value, frozen=True
    )
    return cast(type[KubeObject], made)


def _fields(tree: Tree, prefix: str) -> list[tuple[str, Any, Any]]:
    fields: list[tuple[str, Any, Any]] = []
    for name, child in tree.items():
        if child is None:
            kind: Any = tuple[Condition, ...] if name == "conditions" else Any
            fields.append((name, kind, () if name == "conditions" else None))
            continue
        nested = msgspec.defstruct(
            f"{prefix}_{name}",
            _fields(child, f"{prefix}_{name}"),
            frozen=True,
            omit_defaults=True,
            gc=False,
        )
        fields.append((name, nested, nested()))
    return fields


def _conditions(obj: Any) -> tuple[Condition, ...]:
    found = value_at(obj, CONDITIONS)
    return found if isinstance(found, tuple) else ()


def _holds(spec: StateSpec, obj: Any) -> bool:
    if spec.condition is not None:
        cond = condition(_conditions(obj), spec.condition)
        return cond is not None and cond.status == spec.status
    assert spec.field is not None
    return _same(value_at(obj, spec.field), spec.equals)


def _same(value: Any, wanted: Any) -> bool:
    if isinstance(wanted, bool) or isinstance(value, bool):
        return value is wanted
    return bool(value == wanted)


def _states(resource: ResourceSpec, obj: Any) -> frozenset[str]:
    return frozenset(name for name, spec in resource.states.items() if _holds(spec, obj))


def _diff(resource: ResourceSpec, diff: Diff, old: Any, new: Any) -> None:
    for path in resource.paths():
        if path == CONDITIONS:
            diff.conditions(_conditions(old), _conditions(new))
        else:
            diff.rendered(path, _text(value_at(old, path)), _text(value_at(new, path)))


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _facts(message: MessageSpec | None, obj: Any) -> Facts:
    if message is None:
        return facts()
    if message.condition is not None:
        cond = condition(_conditions(obj), message.condition)
        return facts() if cond is None else facts(cond.reason, cond.message)
    assert message.field is not None
    return facts(message=_text(value_at(obj, message.field)) or "")


def _share(resource: ResourceSpec, sharing: Sharing, obj: Any) -> Any:
    """Bounded leaves, shared conditions and metadata."""
    bounded = _bounded(obj, [path.split(".") for path in resource.paths()], sharing)
    return msgspec.structs.replace(bounded, metadata=sharing.metadata(obj.metadata))


def _bounded(node: Any, paths: list[list[str]], sharing: Sharing) -> Any:
    changes: dict[str, Any] = {}
    for head, rests in _grouped(paths):
        value = getattr(node, head, None)
        if any(not rest for rest in rests):  # a leaf
            changes[head] = _leaf(head, value, sharing)
        elif value is not None:
            changes[head] = _bounded(value, [rest for rest in rests if rest], sharing)
    return msgspec.structs.replace(node, **changes) if changes else node


def _grouped(paths: list[list[str]]) -> Iterator[tuple[str, list[list[str]]]]:
    heads: dict[str, list[list[str]]] = {}
    for head, *rest in paths:
        heads.setdefault(head, []).append(rest)
    yield from heads.items()


def _leaf(name: str, value: Any, sharing: Sharing) -> Any:
    if name == "conditions" and isinstance(value, tuple):
        return sharing.conditions(value)
    if isinstance(value, _SCALARS):
        return value[:MAX_TEXT] if isinstance(value, str) else value
    return msgspec.json.encode(value).decode()[:MAX_TEXT]
