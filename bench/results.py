"""Where every bench writes its figures: ``bench/results/NAME.json``, dated, with the machine.

Every file carries the machine's speed (``speed``: a fixed CPU-bound reference measured
at the end of the run), so figures of different days can be compared. One shape for all
of them so a reader (or a script comparing two runs) finds
the date, the machine and the figures in the same places.
"""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path
from typing import Any

from bench import speed

DIRECTORY = Path(__file__).resolve().parent / "results"
Json = dict[str, Any]


def machine() -> Json:
    """What the figures were measured on, including how busy it was when the run began."""
    model = platform.processor() or "unknown"
    with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
        model = next((ln.split(":", 1)[1].strip() for ln in cpuinfo if "model name" in ln), model)
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_average_at_start": os.getloadavg(),
        "speed": speed.reference(),
    }


def write(name: str, figures: Json, *, path: Path | None = None) -> Path:
    """Write ``figures`` with the date and the machine; return the file written."""
    target = path or DIRECTORY / f"{name}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    report = {"bench": name, "date": time.strftime("%Y-%m-%d %H:%M"), "machine": machine()}
    target.write_text(json.dumps(report | figures, indent=2) + "\n", encoding="utf-8")
    return target
