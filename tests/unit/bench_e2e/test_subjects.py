"""A subject's process: launched, timed to ready, measured from /proc, stopped by PID."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bench.e2e.subjects import OUR_CONFIG, Baseline, KubeNotifier
from notifier.config.loading import read_config_text


class StandIn(Baseline):
    """The baseline's readiness protocol (a ``ready`` line) with a tiny program."""

    def __init__(self, work_dir: Path, program: str) -> None:
        super().__init__(work_dir, work_dir / "kubeconfig", "http://127.0.0.1:9/hook")
        self.program = program

    def argv(self) -> list[str]:
        return [sys.executable, "-c", self.program]


def test_ready_is_timed_from_launch_to_the_ready_line_and_the_process_is_stopped(
    tmp_path: Path,
) -> None:
    subject = StandIn(tmp_path, "import sys, time; time.sleep(0.2); print('ready 3'); input()")
    subject.start()
    try:
        assert 0.2 <= subject.wait_ready(timeout=30) < 30
        assert subject.alive()
        assert subject.cpu_seconds() >= 0
        assert subject.peak_rss_bytes() >= subject.rss_bytes() > 0
    finally:
        subject.stop()
    assert not subject.alive()


def test_a_subject_that_dies_before_ready_says_so_with_its_output(tmp_path: Path) -> None:
    subject = StandIn(tmp_path, "import sys; print('boom', file=sys.stderr); sys.exit(3)")
    subject.start()
    try:
        with pytest.raises(RuntimeError, match="boom"):
            subject.wait_ready(timeout=30)
    finally:
        subject.stop()


def test_our_config_loads_and_every_start_reuses_one_state_file(tmp_path: Path) -> None:
    loaded = read_config_text(OUR_CONFIG, "bench", environ={"KN_BENCH_WEBHOOK": "http://x/hook"})
    assert [rule.name for rule in loaded.config.rules] == [
        "bench-seq",
        "pod-failures",
        "image-changes",
    ]
    assert not loaded.warnings  # the URL comes from the environment, not inline
    ours = KubeNotifier(tmp_path, tmp_path / "kubeconfig", "http://127.0.0.1:9/hook")
    first, second = ours.argv(), ours.argv()
    state = first.index("--state") + 1
    assert first[state] == second[state] == str(tmp_path / "kube-notifier-state.db")
    assert ours.keeps_state
    assert not Baseline(tmp_path, tmp_path / "kubeconfig", "http://127.0.0.1:9/hook").keeps_state
