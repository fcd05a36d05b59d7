"""Scoring a trial: told exactly, coalesced, lost, duplicates, rejected, and the latencies."""

from __future__ import annotations

import math

import pytest

from bench.e2e.scoring import (
    Arrival,
    Latency,
    Mention,
    Send,
    all_told,
    match_mentions,
    percentile,
    score,
)


def send(pod: int, seq: int, sent: float, answered: float | None = None, status: int = 200) -> Send:
    return (pod, seq, sent, sent + 0.01 if answered is None else answered, status)


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.50) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile(values, 1.0) == 100.0
    assert percentile([7.0], 0.99) == 7.0
    assert math.isnan(percentile([], 0.5))


def test_every_change_told_exactly_gives_latencies_from_send_and_from_answer() -> None:
    sends = [send(0, 1, 10.0, 10.02), send(1, 1, 10.5, 10.52)]
    arrivals: list[Arrival] = [(0, 1, 10.1), (1, 1, 10.7)]
    result = score(sends, arrivals, seconds=2.0)
    assert (result.told_exactly, result.coalesced, result.lost) == (2, 0, 0)
    assert result.latency.p50 == pytest.approx(100.0)
    assert result.latency.max == pytest.approx(200.0)
    assert result.after_answer.p50 == pytest.approx(80.0)
    assert result.write_latency.p50 == pytest.approx(20.0)
    assert result.write_rate == pytest.approx(1.0)
    assert result.nothing_lost


def test_a_change_told_by_a_later_seq_of_the_same_pod_is_coalesced_not_lost() -> None:
    sends = [send(0, 1, 1.0), send(0, 2, 2.0), send(1, 1, 1.0)]
    arrivals: list[Arrival] = [(0, 2, 2.5)]
    result = score(sends, arrivals, seconds=2.0)
    assert (result.told_exactly, result.coalesced, result.lost) == (1, 1, 1)
    assert not result.nothing_lost


def test_an_older_seq_arriving_does_not_tell_a_newer_change() -> None:
    result = score([send(0, 5, 1.0)], [(0, 4, 1.5)], seconds=1.0)
    assert result.lost == 1


def test_duplicates_are_counted_and_the_first_arrival_sets_the_latency() -> None:
    result = score([send(0, 1, 1.0)], [(0, 1, 1.3), (0, 1, 1.2), (0, 1, 1.4)], seconds=1.0)
    assert result.duplicates == 2
    assert result.latency.p50 == pytest.approx(200.0)


def test_refused_or_unanswered_changes_are_rejected_and_expected_by_nobody() -> None:
    sends = [send(0, 1, 1.0, status=429), send(1, 1, 1.0, status=0), send(2, 1, 1.0)]
    result = score(sends, [(2, 1, 1.1)], seconds=1.0)
    assert (result.sent, result.accepted, result.rejected, result.lost) == (3, 1, 2, 0)


def test_nothing_told_has_no_latency() -> None:
    result = score([send(0, 1, 1.0)], [], seconds=1.0)
    assert result.latency.count == 0
    assert math.isnan(result.latency.p99)


def test_latency_json_is_plain_numbers() -> None:
    latency = Latency.of([0.001, 0.002])
    assert latency.p50 == pytest.approx(1.0)
    assert score([send(0, 1, 1.0)], [(0, 1, 1.5)], 1.0).as_json()["latency"]["count"] == 1


def test_all_told_needs_every_accepted_change_told_exactly_or_later() -> None:
    sends = [send(0, 1, 1.0), send(0, 2, 1.5), send(1, 1, 1.0), send(2, 1, 1.0, status=500)]
    assert not all_told(sends, [(0, 2, 2.0)])
    assert all_told(sends, [(0, 2, 2.0), (1, 1, 2.0)])


def test_the_watch_floor_splits_latency_into_the_control_planes_part_and_the_subjects() -> None:
    sends = [send(0, 1, 10.0), send(1, 1, 10.0), send(2, 1, 10.0)]
    watched: list[Arrival] = [(0, 1, 10.3), (1, 1, 10.5)]
    told: list[Arrival] = [(0, 1, 10.32), (1, 1, 10.6)]
    result = score(sends, told, seconds=1.0, watched=watched)
    assert result.watch_latency.count == 2
    assert result.watch_latency.max == pytest.approx(500.0)
    assert sorted([result.added.p50, result.added.max]) == pytest.approx([20.0, 100.0])
    assert result.watch_missed == 1


def test_without_a_watch_floor_nothing_is_missed_or_split() -> None:
    result = score([send(0, 1, 10.0)], [(0, 1, 10.1)], seconds=1.0)
    assert (result.watch_latency.count, result.added.count, result.watch_missed) == (0, 0, 0)
    assert score([send(0, 1, 10.0)], [], seconds=1.0, watched=[]).watch_missed == 1


def test_kubewatch_mentions_tell_a_pods_changes_first_in_first_out() -> None:
    sends = [send(0, 1, 1.0), send(0, 2, 2.0), send(1, 1, 1.5), send(1, 2, 1.6, status=409)]
    mentions: list[Mention] = [(0, 2.2), (1, 1.7), (0, 1.1)]
    arrivals, unmatched = match_mentions(sends, mentions)
    assert sorted(arrivals) == [(0, 1, 1.1), (0, 2, 2.2), (1, 1, 1.7)]
    assert unmatched == 0
    assert score(sends, arrivals, seconds=1.0).told_exactly == 3


def test_a_kubewatch_backlog_shows_as_latency_never_as_coalesced() -> None:
    sends = [send(0, 1, 1.0), send(0, 2, 2.0), send(0, 3, 3.0)]
    arrivals, _ = match_mentions(sends, [(0, 3.1), (0, 3.2), (0, 3.3)])
    result = score(sends, arrivals, seconds=3.0)
    assert (result.told_exactly, result.coalesced, result.lost) == (3, 0, 0)
    assert result.latency.max == pytest.approx(2100.0)


def test_a_mention_before_any_change_or_beyond_the_changes_matches_nothing() -> None:
    sends = [send(0, 1, 5.0)]
    arrivals, unmatched = match_mentions(sends, [(0, 4.0), (0, 5.1), (0, 5.2), (7, 6.0)])
    assert arrivals == [(0, 1, 5.1)]
    assert unmatched == 3
    assert score([*sends, send(0, 2, 6.0)], arrivals, seconds=1.0).lost == 1
