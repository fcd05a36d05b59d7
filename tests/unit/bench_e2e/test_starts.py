"""A start's figures: the process tree's CPU in its first seconds, and what a restart told."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from bench.e2e.receiver import Received
from bench.e2e.starts import FirstSeconds, StartTold
from bench.e2e.subjects import Baseline
from bench.e2e.trials import changed_pods


class Burner(Baseline):
    """Burns CPU for a while, says ready, then waits on stdin."""

    def __init__(self, work_dir: Path) -> None:
        super().__init__(work_dir, work_dir / "kubeconfig", "http://127.0.0.1:9/hook")

    def argv(self) -> list[str]:
        program = (
            "import sys, time\n"
            "end = time.process_time() + 0.3\n"
            "while time.process_time() < end: pass\n"
            "print('ready', flush=True)\n"
            "sys.stdin.read()\n"
        )
        return [sys.executable, "-c", program]


def test_the_first_seconds_cpu_is_read_at_the_end_of_the_window(tmp_path: Path) -> None:
    subject = Burner(tmp_path)
    subject.start()
    try:
        window = FirstSeconds(subject, window=1.0)
        subject.wait_ready(timeout=30)
        cpu = window.result()
        assert cpu is not None and cpu >= 0.25
        assert cpu <= subject.tree_cpu_seconds()
    finally:
        subject.stop()


def test_a_window_whose_subject_is_gone_reads_nothing(tmp_path: Path) -> None:
    subject = Burner(tmp_path)
    subject.start()
    window = FirstSeconds(subject, window=60.0)
    subject.stop()
    window.cancel()
    assert window.cpu_seconds is None


def received(arrivals: list[tuple[int, int, float]], mentions: list[tuple[int, float]]) -> Received:
    return Received(arrivals, Counter({"image-changes": 2}), mentions)


def test_a_restart_telling_exactly_the_pods_changed_meanwhile_has_nothing_unexpected() -> None:
    told = StartTold.of(received([(1, 7, 0.1)], [(2, 0.2)]), {1, 2}, saved_state=True)
    assert (told.told_pods, told.expected_pods, told.unexpected, told.missing) == (2, 2, 0, 0)
    assert told.others == {"image-changes": 2}


def test_an_unchanged_pod_told_or_a_pod_told_twice_is_unexpected_and_a_silent_one_missing() -> None:
    told = StartTold.of(received([(1, 7, 0.1), (1, 7, 0.3)], [(5, 0.2)]), {1, 2}, saved_state=True)
    assert told.unexpected == 2  # Pod 5 was not changed; Pod 1 twice
    assert told.missing == 1  # Pod 2


def test_a_start_without_state_is_expected_to_tell_nothing() -> None:
    told = StartTold.of(received([], [(3, 0.1)]), set(), saved_state=False)
    assert (told.unexpected, told.missing, told.saved_state) == (1, 0, False)


def test_changed_pods_are_those_with_changes_since_and_a_full_phase_cycle_is_no_change() -> None:
    before = Counter({1: 2, 2: 5})
    now = Counter({1: 2, 2: 8, 3: 1, 4: 4})
    assert changed_pods(now, before) == {2, 3, 4}
    assert changed_pods(now, before, cycle=3) == {3, 4}  # Pod 2 moved three phases: back
