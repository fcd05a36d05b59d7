"""``record``: an immutable dataclass that is quick to make, for what is made by the thousand.

A ``frozen=True`` dataclass sets each field through ``object.__setattr__`` in
its ``__init__``: on CPython 3.11 that made a compiled rule (24 fields) cost
about 5 µs to build against 1 µs for a plain one, and the problems, issues
and positions of a file of 20,000 misspelt rules a tenth of what checking it
costs (docs/benchmarks.md). A ``record`` is frozen to the type checker
(``dataclass_transform(frozen_default=True)``: mypy refuses an assignment to
a field) and a plain slotted dataclass at run time, so nothing checks
assignments while the program runs: code never makes them.

``record`` compares and hashes by value, as a frozen dataclass does (safe:
no field is assigned after ``__init__``); ``record(eq=False)`` by identity.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")


@overload
def record(cls: type[T], /) -> type[T]: ...


@overload
def record(*, eq: bool = True) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(cls: type[T] | None = None, /, *, eq: bool = True) -> Any:
    """The class as a slotted dataclass, compared by value (``eq=False``: by identity)."""

    def made(kind: type[T]) -> type[T]:
        return dataclass(slots=True, eq=eq, unsafe_hash=eq)(kind)

    return made if cls is None else made(cls)
