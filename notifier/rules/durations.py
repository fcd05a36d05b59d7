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


def format_duration(seconds: float) -> str:
    """A short human form: ``45s``, ``3m12s``, ``2h5m``, ``4d3h``."""
    whole = max(int(seconds), 0)
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    units = (("d", days), ("h", hours), ("m", minutes), ("s", secs))
    shown = [f"{amount}{unit}" for unit, amount in units if amount]
    return "".join(shown[:2]) or "0s"


Duration = Annotated[float, BeforeValidator(parse_duration)]
