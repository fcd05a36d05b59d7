"""State database settings, meant to sit under ``state:`` in the config file."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_PATH = Path("/var/lib/kube-notifier/state.db")


class StateConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    path: Path = DEFAULT_PATH
    lock_timeout_seconds: float = Field(default=5.0, gt=0)
    dead_letter_retention_hours: float = Field(default=168.0, gt=0)
    thread_retention_hours: float = Field(default=168.0, gt=0)
    # Undelivered rows this old (their sink was removed from the config, say)
    # are moved to the dead letters rather than kept forever.
    outbox_retention_hours: float = Field(default=168.0, gt=0)
    prune_interval_seconds: float = Field(default=600.0, gt=0)
