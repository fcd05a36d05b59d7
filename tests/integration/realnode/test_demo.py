"""`make demo` on a machine that can run a real node: a real crash loop and a real OOM kill,
each told once, and nothing left behind (no node directory, network namespace or host
link, sysctls as they were)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.controlplane import hoststate, netns
from tests.controlplane.node import NODES_ROOT

pytestmark = [pytest.mark.integration, pytest.mark.timeout(420)]

ROOT = Path(__file__).resolve().parents[3]
DEMO_SECONDS = 300  # measured: about 100 s on the shared 2-core machine
_BOLD = re.compile(r"\x1b\[[0-9;]*m")


def _nodes() -> set[Path]:
    return set(NODES_ROOT.iterdir()) if NODES_ROOT.is_dir() else set()


def _run_demo(log: Path) -> int:
    """The demo's exit code; past DEMO_SECONDS it is interrupted (it then stops its node)."""
    with log.open("wb") as out:
        demo = subprocess.Popen(
            [sys.executable, "-m", "scripts.demo"], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT
        )
        try:
            return demo.wait(timeout=DEMO_SECONDS)
        except subprocess.TimeoutExpired:
            demo.send_signal(signal.SIGINT)
            demo.wait(timeout=60)
            pytest.fail(f"the demo took over {DEMO_SECONDS} s:\n{log.read_text()[-3000:]}")


def test_the_demo_tells_a_real_crash_loop_and_oom_kill_once_each(
    node_machine: None, tmp_path: Path
) -> None:
    nodes, links, sysctls = _nodes(), netns.host_links(), hoststate.read_sysctls()
    started = time.monotonic()
    code = _run_demo(tmp_path / "demo.log")
    seconds = time.monotonic() - started
    lines = _BOLD.sub("", (tmp_path / "demo.log").read_text(errors="replace")).splitlines()
    tail = "\n".join(lines[-40:])
    headings = [line for line in lines if line.startswith("== ")]
    webhook = [line for line in lines if line.startswith("  [webhook] ")]
    assert code == 0, f"the demo exited {code}:\n{tail}"
    assert not any(line.startswith("on kwok") for line in lines), tail
    assert any(line.startswith("== node demo-node Ready") for line in headings), tail
    assert headings[-1] == "== every message above came from the scenario", tail
    told = [sum(name in line for line in webhook) for name in ("worker-crashy", "worker-hungry")]
    assert told == [1, 1], tail
    assert any("worker-hungry" in line and "OOMKilled" in line for line in webhook), tail
    assert _nodes() == nodes and netns.host_links() == links, "the demo left its node behind"
    assert hoststate.read_sysctls() == sysctls
    print(f"demo on a real node: {seconds:.0f} s")
