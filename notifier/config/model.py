"""The config file's layout: every top-level key and what it holds.

Each component owns the models of its own section: sinks in
``notifier.sinks.config``, rules, defaults, templates and mute windows in
``notifier.rules.config.specs``. This module joins them. Unknown keys are errors
everywhere (``extra="forbid"``); models are frozen, since one ``Config`` is
shared by every thread until the next reload replaces it whole.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from notifier.enrichment.config import EnrichmentConfig
from notifier.kinds.config import ResourceSpec
from notifier.objects import Kind
from notifier.rules.config.specs import (
    DefaultsSpec,
    InhibitSpec,
    MuteIntervalSpec,
    RuleSpec,
)
from notifier.sinks.config import SinkConfig
from notifier.state.config import StateConfig


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class WatchConfig(_Section):
    """What the informers watch. Field names are read by ``notifier.source``."""

    namespaces: list[str] = []  # empty: all namespaces
    kinds: list[Kind] = [Kind.POD, Kind.DEPLOYMENT, Kind.SERVICE]
    # Custom resources, each watched too, with states read from its fields (notifier.kinds.config).
    resources: list[ResourceSpec] = Field(default_factory=list, max_length=50)
    resync_seconds: float = Field(default=0.0, ge=0)  # 0: no periodic resync
    workers: int = Field(default=4, ge=1, le=64)

    def watched(self) -> list[Kind]:
        """Every kind to watch: ``kinds``, then each resource's (no repeats)."""
        return list(dict.fromkeys([*self.kinds, *(resource.kind for resource in self.resources)]))


class Config(_Section):
    cluster_name: str = ""
    watch: WatchConfig = WatchConfig()
    sinks: list[SinkConfig] = []
    defaults: DefaultsSpec = DefaultsSpec()
    templates: dict[str, Any] = {}  # refused: rules/config/moved_templates.py
    mute_windows: dict[str, list[MuteIntervalSpec]] = {}
    rules: list[RuleSpec] = []
    inhibit_rules: list[InhibitSpec] = []  # a source's states mute matching targets
    state: StateConfig = StateConfig()  # the SQLite file: outbox, dead letters, last-seen objects
    enrichment: EnrichmentConfig = EnrichmentConfig()  # how rules' ``enrich:`` context is fetched

    def sink_states(self) -> dict[str, bool]:
        """Every sink by name: enabled or not."""
        return {sink.name: sink.enabled for sink in self.sinks}

    def uses_namespace_labels(self) -> bool:
        """A rule selects namespaces by label: their labels must be watched (and RBAC allow it)."""
        return any(rule.match.namespace_selector for rule in self.rules)

    def context_parts(self) -> dict[str, list[str]]:
        """Each context part some rule asks for (``enrich:``), with the rules asking."""
        asked: dict[str, list[str]] = {}
        for rule in self.rules:
            for part in rule.enrich:
                asked.setdefault(part, []).append(rule.name)
        return asked
