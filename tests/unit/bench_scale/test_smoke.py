"""``python -m bench.scale`` runs end to end at a small size (about 20 s): every phase, real
kube-notifier, real stand-in, real receiver; nothing lost, nothing told twice."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.timeout(240)
def test_a_small_run_measures_every_phase_and_loses_nothing(tmp_path: Path) -> None:
    output = tmp_path / "scale.json"
    command = [
        sys.executable, "-m", "bench.scale", "--pods", "2000", "--namespaces", "20",
        "--bursts", "1", "--burst-seconds", "1", "--rate", "2000", "--no-baseline",
        "--notifier-cpu", "-1", "--helper-cpu", "-1", "--output", str(output),
    ]  # fmt: skip
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=220, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(output.read_text())
    flow = figures["throughput"]
    assert flow["changes"] == 2000
    assert flow["expected"] > 0
    assert flow["told"] + flow["coalesced"] == flow["expected"]
    assert (flow["lost"], flow["duplicates"], flow["unexpected"]) == (0, 0, 0)
    assert figures["relist"]["relists"] == 3  # one 410 relist per kind
    assert figures["restart"]["notifications_after_restart"] == 0
    assert figures["namespaced"]["threads"] > figures["first_start"]["threads"]
    assert "| ready (s) |" in done.stdout
