"""The queue's key type: which object, of which kind."""

from __future__ import annotations

from typing import NamedTuple

from notifier.objects import Kind, ObjectKey


class WorkKey(NamedTuple):
    kind: Kind
    key: ObjectKey

    def __str__(self) -> str:
        return f"{self.kind.value}/{self.key}"
