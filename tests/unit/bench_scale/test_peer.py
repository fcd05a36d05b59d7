"""kubewatch beside kube-notifier in the scale bench: its posts counted, ratios, the table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from bench.e2e.kubewatch import cache_root
from bench.scale import peer
from bench.scale.receiver import SeqReceiver
from bench.scale.report import render

ROOT = Path(__file__).resolve().parents[3]
KUBEWATCH = Path(os.environ.get("KN_BENCH_KUBEWATCH_BIN") or cache_root() / "v2.15.0/kubewatch")


def post(url: str, body: dict[str, Any]) -> tuple[int, str | None]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    with urllib.request.urlopen(request, timeout=5) as response:
        return int(response.status), response.headers.get("Connection")


def test_kubewatch_posts_are_counted_by_kind_and_reason_and_answered_with_close() -> None:
    receiver = SeqReceiver().start()
    try:
        meta = {"kind": "Pod", "name": "p", "namespace": "n", "reason": "Updated"}
        assert post(receiver.url, {"eventmeta": meta, "text": "x"}) == (200, "close")
        post(receiver.url, {"eventmeta": meta | {"kind": "Service"}, "text": "x"})
        ours = {"object": {"namespace": "n", "name": "p", "labels": {"seq": "7"}}}
        assert post(receiver.url, ours)[1] != "close"
        assert receiver.kubewatch_updates() == 1
        assert receiver.others()["kubewatch Service Updated"] == 1
        assert receiver.take() == ([7], 2)
    finally:
        receiver.stop()


def figures() -> dict[str, Any]:
    start = {"ready_s": 4.0, "acted_on_s": 4.1, "cpu_s_to_quiet": 6.0, "steady_rss_mib": 150.0,
             "peak_rss_mib": 160.0, "threads": 18}  # fmt: skip
    flow = {"changes": 10_000, "offered_per_s": 5000.0, "seconds_to_last_notification": 4.0,
            "changes_per_s": 2500.0, "notifications_per_s": 1250.0, "changes_per_cpu_s": 2500.0,
            "cpu_s": 4.0, "expected": 5000, "told": 5000, "coalesced": 0, "lost": 0,
            "duplicates": 0, "unexpected": 0}  # fmt: skip
    kubewatch = {"binary": "v2.15.0", "ready_s": 2.0, "cpu_s_to_quiet": 3.0,
                 "steady_rss_mib": 1500.0, "peak_rss_mib": 1800.0, "changes": 10_000,
                 "told": 10_000, "changes_per_s": 1000.0, "cpu_s": 2.0,
                 "cpu_s_per_1000_changes": 0.2}  # fmt: skip
    found = {"first_start": start, "throughput": flow, "kubewatch": kubewatch}
    found["kubewatch_over_ours"] = peer.ratios(found)
    return found


def test_ratios_are_kubewatch_over_ours_for_costs() -> None:
    over = figures()["kubewatch_over_ours"]
    assert over["ready"] == pytest.approx(0.5)
    assert over["cpu_per_1000_changes"] == pytest.approx(0.5)  # 0.2 against our 0.4
    assert over["peak_rss"] == pytest.approx(11.25)
    assert over["changes_per_s_ours_over_kubewatch"] == pytest.approx(2.5)


def test_the_table_prints_both_and_the_ratio_beside_them() -> None:
    found = figures() | {
        "plan": {"pods": 100_000, "namespaces": 1_000, "notifier_cpu": 0, "watch_namespaces": 500},
        "deployments": 2_000,
        "relist": {"watches_ended": 3, "relisted_s": 5.0, "peak_rss_mib": 170.0,
                   "rss_after_mib": 150.0},
        "restart": {"stop_s": 0.5, "notifications_after_restart": 0, "ready_s": 3.0,
                    "acted_on_s": 3.0, "steady_rss_mib": 150.0, "peak_rss_mib": 150.0,
                    "threads": 18},
        "speed_at_start": {"decode_events_per_cpu_s": 40_000, "decode_events_per_s": 39_000,
                           "load_average": (1.0, 1.0, 1.0)},
    }  # fmt: skip
    text = render(found)
    assert "40,000 events per CPU-second" in text.splitlines()[0]
    assert "| CPU s per 1,000 changes (bursts) | 0.40 | 0.20 | 0.50x |" in text
    assert "| ready (s) | 4.00 | 2.00 | 0.50x |" in text


@pytest.mark.skipif(not KUBEWATCH.exists(), reason=f"no kubewatch binary at {KUBEWATCH}")
@pytest.mark.timeout(240)
def test_a_small_run_measures_kubewatch_on_the_same_stand_in(tmp_path: Path) -> None:
    output = tmp_path / "scale.json"
    command = [
        sys.executable, "-m", "bench.scale", "--pods", "1000", "--namespaces", "10",
        "--bursts", "1", "--burst-seconds", "1", "--rate", "1000", "--no-baseline",
        "--notifier-cpu", "-1", "--helper-cpu", "-1", "--output", str(output),
        "--kubewatch-bin", str(KUBEWATCH),
    ]  # fmt: skip
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=220, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(output.read_text())
    assert result["kubewatch"]["told"] == result["kubewatch"]["changes"] == 1000
    assert result["kubewatch_over_ours"]["cpu_per_1000_changes"] > 0
    assert result["machine"]["speed"]["decode_events_per_cpu_s"] > 0
    assert "kubewatch / ours" in done.stdout


def test_a_kubewatch_that_did_not_post_every_change_gets_no_burst_ratios() -> None:
    found = figures()
    found["kubewatch"]["told"] = 3_000
    over = peer.ratios(found)
    assert over["cpu_per_1000_changes"] is None
    assert over["changes_per_s_ours_over_kubewatch"] is None
    assert over["ready"] == pytest.approx(0.5)
