"""The clock the queue package reads: seconds as a float, monotonic in production.

Injected everywhere so tests move time by hand instead of sleeping.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

Clock: TypeAlias = Callable[[], float]
