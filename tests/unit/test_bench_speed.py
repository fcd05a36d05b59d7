"""The machine's speed reference: a fixed, CPU-bound figure every bench run reports."""

from __future__ import annotations

import json
from pathlib import Path

from bench import results, speed


def test_the_reference_decodes_the_same_stream_every_time_and_reports_a_rate() -> None:
    first = speed.reference(repeats=1)
    second = speed.reference(repeats=1)
    assert first["reference_events"] == second["reference_events"] == speed.EVENTS
    assert first["decode_events_per_cpu_s"] > 0 and first["decode_events_per_s"] > 0
    assert "events per CPU-second" in speed.line(first)


def test_every_results_file_carries_it(tmp_path: Path) -> None:
    written = results.write("x", {"figure": 1}, path=tmp_path / "x.json")
    assert json.loads(written.read_text())["machine"]["speed"]["decode_events_per_cpu_s"] > 0
