"""The churn's schedule: which patch goes where, with which seq, when; and what is recorded."""

from __future__ import annotations

from typing import Any

from bench.e2e.churn import SEQ_STRIDE, ChurnPlan, Share, trial_of

PODS = (("bench-0", "pod-00000"), ("bench-1", "pod-00001"), ("bench-2", "pod-00002"))


class Clock:
    """Time that moves only when someone sleeps or a request takes a while."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


class FakeApi:
    def __init__(self, clock: Clock, status: int = 200, takes: float = 0.0) -> None:
        self.clock = clock
        self.status = status
        self.takes = takes
        self.requests: list[tuple[str, str, Any, str]] = []
        self.closed = False

    def connect(self) -> None:
        return None

    def request(
        self, method: str, path: str, body: Any = None, content_type: str = ""
    ) -> tuple[int, bytes]:
        self.requests.append((method, path, body, content_type))
        self.clock.now += self.takes
        return self.status, b"{}"

    def close(self) -> None:
        self.closed = True


def test_seqs_grow_per_pod_and_carry_the_trial() -> None:
    plan = ChurnPlan(trial=4, rate=10.0, seconds=1.0, pods=PODS)
    assert [plan.seq(i) for i in range(7)] == [4 * SEQ_STRIDE + i // 3 for i in range(7)]
    assert trial_of(plan.seq(6)) == 4


def test_a_share_sends_its_indices_on_schedule_round_robin_over_the_pods() -> None:
    clock = Clock()
    plan = ChurnPlan(trial=1, rate=10.0, seconds=1.0, pods=PODS, processes=2)
    share = Share(plan, share=1, start=100.0, clock=clock, sleep=clock.sleep)
    api = FakeApi(clock)
    share.work(api)
    assert [send[0] for send in share.sends] == [1, 0, 2, 1, 0]  # indices 1, 3, 5, 7, 9 mod 3
    assert [round(send[2], 6) for send in share.sends] == [100.1, 100.3, 100.5, 100.7, 100.9]
    method, path, body, content_type = api.requests[0]
    assert (method, path) == ("PATCH", "/api/v1/namespaces/bench-1/pods/pod-00001")
    assert body == {"metadata": {"labels": {"seq": str(SEQ_STRIDE)}}}
    assert content_type == "application/merge-patch+json"
    assert api.closed


def test_a_slow_api_makes_late_patches_go_at_once_and_the_trial_still_ends_on_time() -> None:
    clock = Clock()
    plan = ChurnPlan(trial=1, rate=100.0, seconds=1.0, pods=PODS, processes=1)
    share = Share(plan, share=0, start=100.0, clock=clock, sleep=clock.sleep)
    share.work(FakeApi(clock, takes=0.125))  # one thread: eight patches a second at most
    assert len(share.sends) == 8
    assert clock.slept == []
    assert all(answered - sent == 0.125 for _pod, _seq, sent, answered, _status in share.sends)


def test_flat_out_sends_until_the_end_without_waiting() -> None:
    clock = Clock()
    plan = ChurnPlan(trial=1, rate=None, seconds=1.0, pods=PODS, processes=1)
    share = Share(plan, share=0, start=100.0, clock=clock, sleep=clock.sleep)
    share.work(FakeApi(clock, status=500, takes=0.25))
    assert [send[4] for send in share.sends] == [500] * 4
    assert clock.slept == []
