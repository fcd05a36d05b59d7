"""Config reload metrics on the default Prometheus registry (names as Alertmanager's)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

LAST_RELOAD_SUCCESSFUL = Gauge(
    "kube_notifier_config_last_reload_successful",
    "1 if the last attempt to load the config succeeded, else 0.",
)
LAST_RELOAD_SUCCESS_TIME = Gauge(
    "kube_notifier_config_last_reload_success_timestamp_seconds",
    "When the config was last loaded successfully (seconds since the epoch).",
)
CONFIG_HASH = Gauge(
    "kube_notifier_config_hash",
    "The first 52 bits of the sha256 of the config in use (after ${VAR} expansion).",
)
RELOADS = Counter(
    "kube_notifier_config_reloads_total",
    "Attempts to load the config, by result.",
    ["result"],
)
for _result in ("success", "failure"):
    RELOADS.labels(result=_result)


def hash_value(digest: str) -> float:
    """A hex digest as a gauge value: 52 bits fit a float exactly."""
    return float(int(digest[:13], 16))


def record_success(digest: str, at: float) -> None:
    LAST_RELOAD_SUCCESSFUL.set(1)
    LAST_RELOAD_SUCCESS_TIME.set(at)
    CONFIG_HASH.set(hash_value(digest))
    RELOADS.labels(result="success").inc()


def record_failure() -> None:
    LAST_RELOAD_SUCCESSFUL.set(0)
    RELOADS.labels(result="failure").inc()
