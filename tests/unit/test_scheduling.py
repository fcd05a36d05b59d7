"""``notifier.scheduling``: SCHED_BATCH for the process's threads, in a fresh interpreter
(the test process keeps its own policy)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "SCHED_BATCH"), reason="Linux only")

PROBE = """
import os, threading
from notifier.scheduling import choose
chosen = choose({policy!r})
seen = []
thread = threading.Thread(target=lambda: seen.append(os.sched_getscheduler(0)))
thread.start()
thread.join()
print(chosen, os.sched_getscheduler(0) == os.SCHED_BATCH, seen[0] == os.SCHED_BATCH)
"""


def _probe(policy: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(policy=policy)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.strip()


def test_batch_is_chosen_for_the_thread_and_inherited_by_threads_it_starts() -> None:
    assert _probe("batch") == "True True True"


def test_normal_leaves_the_default_policy() -> None:
    assert _probe("normal") == "False False False"
