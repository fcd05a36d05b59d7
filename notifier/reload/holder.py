"""Hot reload, the pure part: swap in a new ruleset atomically, keep the last good one.

``RulesHolder`` holds the ``LoadedConfig`` in use. Workers read
``holder.ruleset()`` (an attribute read: atomic, no lock) for every
transition; ``reload_text`` / ``reload_file`` load a candidate and, only if
it is valid, swap it in under a lock. A failed reload changes nothing but
the metrics and the returned ``ReloadResult``, which the caller logs or
turns into a Kubernetes Event. Watching the file or ConfigMap is the
caller's business.

The rules take effect on swap. What else a reload changes is the business
of the ``Stager``s (the service's: sinks, and the namespace watch that
``namespace_selector`` rules need); they prepare before the swap, so a sink
that cannot be built or a namespace list we may not read rejects the whole
reload, and new rules never name a sink that is not there. What nobody
applies (``watch.workers`` and ``watch.resync_seconds``, ``state``; ``sinks``,
the watched kinds and namespaces and the namespace-label watch when no stager
is set) is listed in ``ReloadResult.restart_needed`` when it changed.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from notifier.config import metrics
from notifier.config.errors import ConfigError, ConfigIssue
from notifier.config.loading import LoadedConfig, read_config, read_config_text
from notifier.config.model import WatchConfig
from notifier.rules.ruleset import Ruleset

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class Staged:
    """A reload's changes beyond the rules, prepared (sinks built) and not yet in effect."""

    apply: Callable[[], None]  # called just before the new rules are swapped in
    restart_needed: tuple[str, ...] = ()  # what of the candidate it cannot apply while running


# (previous, candidate) -> Staged; raises ConfigError naming what cannot be applied.
Stager = Callable[[LoadedConfig, LoadedConfig], Staged]


@dataclass(frozen=True, slots=True)
class ReloadResult:
    ok: bool
    changed: bool  # a different config is now in use
    digest: str  # of the candidate ("" when it could not be read)
    issues: tuple[ConfigIssue, ...]  # the errors if not ok, else the warnings
    at: float
    restart_needed: tuple[str, ...] = ()  # sections changed that a swap does not apply
    first: bool = False  # the load at start
    recovered: bool = False  # valid after a rejected attempt (the rules in use may be unchanged)


class RulesHolder:
    def __init__(self, initial: LoadedConfig, *, clock: Clock = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._current = initial
        self._stagers: tuple[Stager, ...] = ()
        self.last_result = ReloadResult(
            True, True, initial.digest, initial.warnings, clock(), first=True
        )
        metrics.record_success(initial.digest, self.last_result.at)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], *, clock: Clock = time.time) -> RulesHolder:
        """The holder of the config in ``path``; ``ConfigError`` if it is invalid."""
        try:
            loaded = read_config(path)
        except ConfigError:
            metrics.record_failure()
            raise
        return cls(loaded, clock=clock)

    def stage_with(self, *stagers: Stager) -> None:
        """From now on, ``stagers`` apply the sinks and the namespace watch on a reload."""
        self._stagers = stagers

    @property
    def current(self) -> LoadedConfig:
        return self._current

    def ruleset(self) -> Ruleset:
        """The ruleset in use; pass ``holder.ruleset`` to ``RulesEngine``."""
        return self._current.ruleset

    def reload_file(self, path: str | os.PathLike[str]) -> ReloadResult:
        try:
            return self._attempt(lambda: read_config(path))
        except OSError as exc:
            issue = ConfigIssue(str(path), None, None, "", f"cannot read the config: {exc}")
            return self._failed((issue,))

    def reload_text(
        self, text: str, source_name: str, *, environ: Mapping[str, str] | None = None
    ) -> ReloadResult:
        return self._attempt(lambda: read_config_text(text, source_name, environ=environ))

    def _attempt(self, load: Callable[[], LoadedConfig]) -> ReloadResult:
        try:
            candidate = load()
        except ConfigError as exc:
            return self._failed(exc.issues)
        return self._swap(candidate)

    def _swap(self, candidate: LoadedConfig) -> ReloadResult:
        try:
            return self._swap_staged(candidate)
        except ConfigError as exc:  # the stager could not prepare it: nothing changed
            return self._failed(exc.issues)

    def _swap_staged(self, candidate: LoadedConfig) -> ReloadResult:
        with self._lock:
            previous = self._current
            changed = candidate.digest != previous.digest
            restart = _restart_needed(previous, candidate, staged=bool(self._stagers))
            if changed:
                # Every stager prepares before any applies: one refusal changes nothing.
                prepared = [stager(previous, candidate) for stager in self._stagers]
                for staged in prepared:
                    staged.apply()
                    restart = (*restart, *staged.restart_needed)
            if changed:
                self._current = candidate
            result = ReloadResult(
                ok=True,
                changed=changed,
                digest=candidate.digest,
                issues=candidate.warnings,
                at=self._clock(),
                restart_needed=restart,
                recovered=not self.last_result.ok,
            )
            self.last_result = result
        metrics.record_success(candidate.digest, result.at)
        return result

    def _failed(self, issues: tuple[ConfigIssue, ...]) -> ReloadResult:
        result = ReloadResult(False, False, "", issues, self._clock())
        with self._lock:
            self.last_result = result
        metrics.record_failure()
        return result


def _restart_needed(
    previous: LoadedConfig, candidate: LoadedConfig, *, staged: bool
) -> tuple[str, ...]:
    old, new = previous.config, candidate.config
    sections = {
        "sinks": not staged and old.sinks != new.sinks,
        "watch": _watch_differs(old.watch, new.watch, staged=staged),
        "state": old.state != new.state,
        # The namespace watch starts only when a rule needs it (RBAC stays minimal).
        "rules (namespace_selector needs the namespace watch)": not staged
        and new.uses_namespace_labels()
        and not old.uses_namespace_labels(),
    }
    return tuple(name for name, differs in sections.items() if differs)


# What the service's watch stager applies live: which kinds, which resources, where.
_LIVE_WATCH_FIELDS = frozenset({"kinds", "resources", "namespaces"})


def _watch_differs(old: WatchConfig, new: WatchConfig, *, staged: bool) -> bool:
    """A ``watch`` change nobody applies while running (all of it, with no stagers)."""
    skip = _LIVE_WATCH_FIELDS if staged else frozenset()
    fields = [name for name in type(old).model_fields if name not in skip]
    return any(getattr(old, name) != getattr(new, name) for name in fields)
