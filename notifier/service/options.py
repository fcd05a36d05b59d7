"""What ``kube-notifier run`` is asked to do: its flags as one value, read by the assembly and
the running service (the flags themselves, each with its environment variable and a sane
default, are ``cli/run.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RunOptions:
    config: Path
    kubeconfig: str | None
    context: str | None
    listen_host: str
    listen_port: int
    shutdown_deadline: float
    log_level: str
    log_format: str
    watchdog_seconds: float
    stale_after_seconds: float
    wedged_after_seconds: float
    scheduling: str
    debug_decisions: bool
    page: bool
    page_writes: bool
    state_path: str
    config_map: tuple[str, str] | None
    silences: tuple[str, str] | None
    leader_elect: bool
    lease_namespace: str
    lease_name: str
    identity: str
    lease_duration: float
    standby_window: float
