"""A page of results and the filter a view is read through, shared by what keeps the data
(the decision ring, the firing board, the rules' waiting) and the page that shows it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Paged(Generic[_T]):
    items: list[_T]
    total: int  # how many matched, over every page
    offset: int
    limit: int

    @property
    def has_next(self) -> bool:
        return self.offset + len(self.items) < self.total


@dataclass(frozen=True, slots=True)
class Where:
    """The Now view's filter: empty means any."""

    namespace: str = ""
    kind: str = ""
    rule: str = ""
