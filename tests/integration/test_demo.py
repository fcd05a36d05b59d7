"""`make demo` on kwok, as a newcomer whose machine cannot run a real node sees it (`--kwok`;
tests/integration/realnode/test_demo.py runs it on a real node): its own control plane,
kube-notifier and scenario.

It must end saying that every message came from the scenario, and exit 0: its
scenario's messages all arrived (the demo checks them) and nothing else did (no
false alarm, such as a fake node turning Unknown; issue #27).
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.controlplane import assets

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
DEMO_SECONDS = 180  # measured: 40 to 45 s on the shared 2-core machine
_BOLD = re.compile(r"\x1b\[[0-9;]*m")


def _run_demo(log: Path) -> tuple[int, float]:
    started = time.monotonic()
    with log.open("wb") as out:
        demo = subprocess.Popen(
            [sys.executable, "-m", "scripts.demo", "--kwok"],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            return demo.wait(timeout=DEMO_SECONDS), time.monotonic() - started
        except subprocess.TimeoutExpired:
            demo.send_signal(signal.SIGINT)  # the demo stops what it started, then exits
            try:
                demo.wait(timeout=60)
            except subprocess.TimeoutExpired:
                demo.kill()
                demo.wait()
            pytest.fail(f"the demo took over {DEMO_SECONDS} s:\n{_tail(log)}")


def _tail(log: Path, lines: int = 40) -> str:
    return "\n".join(_BOLD.sub("", log.read_text(errors="replace")).splitlines()[-lines:])


@pytest.mark.timeout(DEMO_SECONDS + 90)
def test_the_demo_shows_only_what_its_scenario_causes(tmp_path: Path) -> None:
    needed = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok")
    if missing := [name for name in needed if assets.find(name) is None]:
        pytest.fail(f"control-plane assets missing: {missing}; run `make assets`", pytrace=False)
    log = tmp_path / "demo.log"
    code, seconds = _run_demo(log)
    output = _BOLD.sub("", log.read_text(errors="replace"))
    headings = [line for line in output.splitlines() if line.startswith("== ")]
    assert code == 0, f"the demo exited {code}:\n{_tail(log)}"
    assert headings[-1] == "== every message above came from the scenario", _tail(log)
    assert "== summary (from /metrics)" in headings
    webhook = [line for line in output.splitlines() if line.startswith("  [webhook] ")]
    assert any("50 Pods in batch" in line for line in webhook), _tail(log)
    print(f"demo: {seconds:.0f} s, {len(webhook)} webhook messages")
