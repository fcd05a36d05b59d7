"""Opening state stores on temporary files, with a clock the test moves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from notifier.state import StateConfig, StateStore


class FakeClock:
    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def open_store(path: Path, clock: FakeClock | None = None, **config: Any) -> StateStore:
    settings = StateConfig(path=path, **config)
    return StateStore(settings, clock=clock) if clock is not None else StateStore(settings)
