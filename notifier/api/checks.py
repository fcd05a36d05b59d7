"""Health checks as plain data: a name, whether it passes, and why not.

Liveness asks "would restarting this process help?": threads dead or a
worker wedged, yes; the API server unreachable, no. Readiness asks "is
this replica doing its job right now?": config loaded, informers synced,
watches fresh, delivery running.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CheckResult:
    name: str
    ok: bool
    detail: str = ""


Check = Callable[[], CheckResult]


def run_checks(checks: Sequence[Check]) -> list[CheckResult]:
    results = []
    for check in checks:
        try:
            results.append(check())
        except Exception as err:  # a check that blows up is a failing check, not a 500
            results.append(CheckResult(getattr(check, "__name__", "check"), False, repr(err)))
    return results


def threshold(name: str, value: Callable[[], float], bound: float, unit: str = "s") -> Check:
    """Passes while ``value()`` stays at or under ``bound``."""

    def check() -> CheckResult:
        current = value()
        detail = f"{current:.1f}{unit} (bound {bound:.0f}{unit})"
        return CheckResult(name, current <= bound, detail)

    return check


def flag(name: str, value: Callable[[], bool], failing: str) -> Check:
    def check() -> CheckResult:
        ok = value()
        return CheckResult(name, ok, "" if ok else failing)

    return check
