"""Durations as people write them in the config: ``30s``, ``5m``, ``1h30m``, ``250ms`` or seconds.

``parse_duration`` returns seconds as a float and raises ``ValueError`` with
the accepted forms in the message; ``Duration`` is the pydantic field type
built on it.
"""

from __future__ import annotations

import math
import re
from typing import Annotated

from pydantic import BeforeValidator

_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")
_WHOLE = re.compile(r"(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+")

EXPECTED = "a duration such as 30s, 5m, 1h30m, 250ms or a number of seconds"


def parse_duration(value: object) -> float:
    """Seconds in ``value``; numbers are seconds already."""
    if isinstance(value, bool):
        raise ValueError(f"expected {EXPECTED}")
    if isinstance(value, int | float):
        return _non_negative(float(value))
    if isinstance(value, str) and _WHOLE.fullmatch(value.strip()):
        parts = _PART.findall(value.strip())
        return sum(float(amount) * _UNIT_SECONDS[unit] for amount, unit in parts)
    raise ValueError(f"expected {EXPECTED}, got {value!r}")


def _non_negative(seconds: float) -> float:
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"expected {EXPECTED}, got {seconds!r}")
    return seconds


Duration = Annotated[float, BeforeValidator(parse_duration)]
