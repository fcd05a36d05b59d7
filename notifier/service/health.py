"""The service's liveness and readiness checks, built from its parts."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from notifier.api.checks import Check, CheckResult, flag, threshold
from notifier.delivery.delivery import Delivery
from notifier.reload.holder import RulesHolder
from notifier.source.configmaps import WatchedConfigMap
from notifier.source.informer import Informer
from notifier.supervision import crashed
from notifier.workers.worker import Workers


@dataclass
class Parts:
    holder: RulesHolder
    informers: Iterable[Informer]  # as they are at each request: a reload may change them
    workers: Workers
    delivery: Delivery
    stale_after: float
    wedged_after: float
    shutting_down: Callable[[], bool]
    # Watched only once a rule selects namespaces by label: until it has listed them,
    # such a rule would route as if every namespace had no labels.
    namespaces_watched: Callable[[], bool] = lambda: False
    namespaces_listed: Callable[[], bool] = lambda: True
    namespaces_failing: Callable[[], bool] = lambda: False
    config_maps: Sequence[WatchedConfigMap] = ()  # the rules and silences ConfigMaps, if watched
    state_alive: Callable[[], bool] = lambda: True
    credentials_refused: Callable[[], dict[str, str]] = dict
    ticker_alive: Callable[[], bool] = lambda: True  # group digests and ``for:`` timers


def liveness(parts: Parts) -> list[Check]:
    """Would a restart help? Dead threads or a wedged worker: yes. An unreachable API: no."""
    checks = [flag(f"informer-{i.kind.value}", _alive(i), "thread died") for i in parts.informers]
    checks.append(flag("workers", lambda: parts.workers.alive, "a worker thread died"))
    checks.append(threshold("worker-busy", parts.workers.longest_busy_seconds, parts.wedged_after))
    checks.append(flag("state-writer", parts.state_alive, "the state writer thread is gone"))
    checks.append(flag("rules-ticker", parts.ticker_alive, "the rules' clock thread is gone"))
    checks.append(_threads)
    return checks


def _threads() -> CheckResult:
    dead = crashed()
    detail = "; ".join(f"{name} died ({why})" for name, why in sorted(dead.items()))
    return CheckResult("threads", not dead, detail)


def readiness(parts: Parts) -> list[Check]:
    checks: list[Check] = [
        flag("shutdown", lambda: not parts.shutting_down(), "shutting down"),
        flag("config", lambda: parts.holder.current is not None, "no config loaded"),
        flag("delivery", lambda: parts.delivery.running, "delivery is not running"),
        lambda: _stuck(parts.delivery),
        lambda: _credentials(parts.credentials_refused()),
    ]
    if parts.namespaces_watched():
        checks.append(
            flag("synced-namespace-labels", parts.namespaces_listed, "namespaces not listed yet")
        )
        checks.append(
            flag("watch-open-namespace-labels", lambda: not parts.namespaces_failing(), _FAILING)
        )
    for watched in parts.config_maps:
        checks.extend(_config_map_checks(watched))
    for informer in parts.informers:
        checks.append(_synced(informer))
        checks.append(
            flag(
                f"watch-open-{informer.kind.value}",
                _holds_open(informer),
                _FAILING,
            )
        )
        checks.append(
            threshold(
                f"watch-{informer.kind.value}", informer.seconds_since_activity, parts.stale_after
            )
        )
    return checks


_FAILING = "the watch keeps failing or closing at once"


def _config_map_checks(watched: WatchedConfigMap) -> list[Check]:
    name = watched.name.replace(" ", "-")
    return [
        flag(f"synced-{name}", watched.synced.is_set, "not read yet"),
        flag(f"watch-open-{name}", lambda: not watched.failing, _FAILING),
    ]


def _credentials(refused: dict[str, str]) -> CheckResult:
    detail = "; ".join(f"{name}: {why}" for name, why in sorted(refused.items()))
    return CheckResult("sink-credentials", not refused, detail)


def _stuck(delivery: Delivery) -> CheckResult:
    stuck = delivery.stuck_sinks()
    detail = ", ".join(
        f"{name}: a send in flight for {s:.0f}s" for name, s in sorted(stuck.items())
    )
    return CheckResult("sinks-stuck", not stuck, detail)


def _holds_open(informer: Informer) -> Callable[[], bool]:
    return lambda: not informer.watch_failing()


def _alive(informer: Informer) -> Callable[[], bool]:
    return lambda: informer.alive


def _synced(informer: Informer) -> Check:
    def check() -> CheckResult:
        return CheckResult(
            f"synced-{informer.kind.value}",
            informer.synced,
            "" if informer.synced else "initial list not done",
        )

    return check
