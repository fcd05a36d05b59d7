"""Pydantic's validation errors, rewritten as key paths and plain messages.

Pydantic locates an error by the model's view (``sinks[0].webhook.url``,
with the union member's tag); the user knows the file's view
(``sinks[0].url``). ``problems_of`` maps one to the other, says which keys
are allowed where an unknown one was found, and keeps one error per value
when a union tried several shapes. A message quotes the wrong value only
where it cannot be a secret: never a value that came from the environment,
nor one under a key that names a secret, a URL or a header (these messages
reach logs and Kubernetes Events).
"""

from __future__ import annotations

import functools
import re
import types
import typing
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from notifier.kinds.registry import KINDS
from notifier.objects import KIND_PATTERN
from notifier.records import record
from notifier.rules.config.problems import KeyPath
from notifier.suggestions import Suggesting, Wording
from notifier.transitions.vocabulary import all_kinds

_SCALARS = (str, int, float, bool, type(None))
_NOT_A_MAPPING = frozenset({"model_type", "dict_type", "model_attributes_type"})
_SECRET_WORDS = ("secret", "token", "password", "passwd", "auth", "key", "url", "header", "cert")
_SECRET_WORD = re.compile("|".join(_SECRET_WORDS), re.IGNORECASE)


@record
class Problem:
    path: KeyPath
    wording: Wording
    at_key: bool = False  # point at the key rather than at its value


def problems_of(
    exc: ValidationError,
    data: Any,
    root: type[BaseModel],
    from_environment: frozenset[KeyPath] = frozenset(),
    prefix: KeyPath = (),
) -> list[Problem]:
    """``exc``'s errors as problems; ``data`` is what ``root`` validated, found at ``prefix``."""
    found: dict[KeyPath, list[tuple[ErrorDetails, bool]]] = {}
    for error in exc.errors():
        path, through_union = _data_path(error["loc"], data, error["type"] == "missing")
        found.setdefault(prefix + path, []).append((error, through_union))
    return [
        problem
        for path, errors in found.items()
        for problem in _kept(path, errors, root, shown=not _secret(path, from_environment))
    ]


def _secret(path: KeyPath, from_environment: frozenset[KeyPath]) -> bool:
    if from_environment and any(path[:end] in from_environment for end in range(len(path) + 1)):
        return True
    return any(_names_a_secret(part) for part in path if isinstance(part, str))


@functools.lru_cache(maxsize=4096)
def _names_a_secret(key: str) -> bool:
    return _SECRET_WORD.search(key) is not None


def _kept(
    path: KeyPath, errors: list[tuple[ErrorDetails, bool]], root: type[BaseModel], *, shown: bool
) -> Iterator[Problem]:
    """Drop "wrong type" errors of union members the value was clearly not meant to be."""
    shaped = [e for e, union in errors if not (union and e["type"].endswith("_type"))]
    for error in shaped or [errors[0][0]]:
        yield _problem(path, error, root, shown=shown)


def _problem(path: KeyPath, error: ErrorDetails, root: type[BaseModel], *, shown: bool) -> Problem:
    kind, loc = error["type"], error["loc"]
    ctx = error.get("ctx") or {}
    if kind == "union_tag_invalid":
        return _unknown_tag(path, ctx)
    if kind == "string_pattern_mismatch" and ctx.get("pattern") == KIND_PATTERN:
        return Problem(path, not_a_kind(str(error.get("input"))))
    if kind == "extra_forbidden":
        return Problem(path, _unknown_key(root, loc), at_key=True)
    if kind == "missing":
        return Problem(path, f"missing required key {loc[-1]!r}")
    if kind in _NOT_A_MAPPING:
        return Problem(
            path, f"expected a mapping (key: value), got {_type_name(error.get('input'))}"
        )
    message = error["msg"].removeprefix("Value error, ")
    value = error.get("input")
    if isinstance(value, _SCALARS) and not kind.startswith(("value_error", "assertion")):
        message += f", got {value!r}" if shown else f", got {_type_name(value)} (not shown)"
    return Problem(path, message)


def _unknown_tag(path: KeyPath, ctx: dict[str, Any]) -> Problem:
    key = str(ctx.get("discriminator", "type")).strip("'")
    tag = str(ctx.get("tag"))
    expected = [t.strip(" '") for t in str(ctx.get("expected_tags", "")).split(",") if t.strip()]
    what = f"sink {key}" if path[:1] == ("sinks",) else key
    expected_text = f"; expected one of: {', '.join(expected)}"
    wording = Suggesting(
        f"unknown {what} {tag!r}", tag, tuple(expected), expected_text, folded=True
    )
    return Problem((*path, key), wording)


def not_a_kind(text: str) -> Suggesting:
    """For a word that cannot be a kind's name ('pod', 'deployments'): the kind meant."""
    kinds = tuple(sorted(kind.value for kind in all_kinds(kinds=KINDS)))
    return Suggesting(
        f"{text!r} is not a kind's name", text, kinds,
        f": kinds are written as the API writes them; expected one of: {', '.join(kinds)}, "
        "or a custom resource's kind declared under watch.resources",
        folded=True,
    )  # fmt: skip


def _type_name(value: Any) -> str:
    names = {list: "a list", str: "text", int: "a number", float: "a number", bool: "true/false"}
    return names.get(type(value), "nothing" if value is None else type(value).__name__)


def _data_path(loc: tuple[int | str, ...], data: Any, missing: bool) -> tuple[KeyPath, bool]:
    """The path in the document; skips segments pydantic adds (union tags, type names).

    The last segment of a ``missing`` error is kept although the data lacks it: it is
    the key to add."""
    path: list[str | int] = []
    skipped = False
    current = data
    for position, part in enumerate(loc):
        if _holds(current, part):
            current = current[part]
        elif not (missing and position == len(loc) - 1):
            skipped = True
            continue
        path.append(part)
    return tuple(path), skipped


def _holds(container: Any, part: int | str) -> bool:
    if isinstance(container, dict):
        return part in container
    return isinstance(container, list) and isinstance(part, int) and 0 <= part < len(container)


def _unknown_key(root: type[BaseModel], loc: tuple[int | str, ...]) -> Wording:
    key = str(loc[-1])
    shape = tuple(0 if isinstance(part, int) else part for part in loc[:-1])  # any index alike
    model = _cached_model_at(root, shape)
    if model is None:
        return f"unknown key {key!r}"
    allowed, expected = _allowed_keys(model)
    return Suggesting(f"unknown key {key!r}", key, allowed, expected, folded=True)


@functools.lru_cache(maxsize=1024)
def _cached_model_at(root: type[BaseModel], loc: tuple[int | str, ...]) -> type[BaseModel] | None:
    return _model_at(root, loc)


@functools.lru_cache(maxsize=256)
def _allowed_keys(model: type[BaseModel]) -> tuple[tuple[str, ...], str]:
    """The keys ``model`` takes, and the words listing them (once per model, not per error)."""
    allowed = tuple(sorted(info.alias or name for name, info in model.model_fields.items()))
    return allowed, f"; expected one of: {', '.join(allowed)}"


def _model_at(root: type[BaseModel], loc: tuple[int | str, ...]) -> type[BaseModel] | None:
    current: Any = root
    for part in loc:
        current = _child(current, part)
        if current is None:
            return None
    current = _unwrapped(current)
    return current if _is_model(current) else None


def _child(annotation: Any, part: int | str) -> Any:
    annotation = _unwrapped(annotation)
    if _is_model(annotation):
        return next(
            (
                info.annotation
                for name, info in annotation.model_fields.items()
                if part in (name, info.alias)
            ),
            annotation if _names_member(annotation, part) else None,
        )
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (list, tuple) and isinstance(part, int):
        return args[0]
    if origin is dict:
        return args[1]
    if origin in (typing.Union, types.UnionType):
        return _union_child(args, part)
    return None


def _union_child(members: tuple[Any, ...], part: int | str) -> Any:
    for model in map(_unwrapped, members):
        if _is_model(model) and _names_member(model, part):
            return model
    children = (_child(member, part) for member in members if member is not type(None))
    return next((child for child in children if child is not None), None)


def _names_member(model: type[BaseModel], part: int | str) -> bool:
    """Whether ``part`` is how pydantic names this union member: its tag or class name."""
    if part == model.__name__:
        return True
    tag = model.model_fields.get("type")
    return tag is not None and part in typing.get_args(tag.annotation)


def _unwrapped(annotation: Any) -> Any:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)
