"""Noise control on its own: dedup windows and group timing, with time moved by hand."""

from __future__ import annotations

from notifier.rules.noise.control import Admission, NoiseControl
from notifier.rules.noise.policy import NoisePolicy
from notifier.rules.reasons import SuppressReason

SINGLE = NoisePolicy(dedup_window=60)
GROUPED = NoisePolicy(
    dedup_window=60,
    group_by=("namespace",),
    group_wait=30,
    group_interval=300,
    repeat_interval=3600,
    max_listed=3,
)
SHOP = (("namespace", "shop"),)


def _offer(
    noise: NoiseControl[str],
    item: str,
    now: float,
    policy: NoisePolicy = SINGLE,
) -> Admission[str]:
    return noise.offer(
        item,
        rule="r",
        policy=policy,
        dedup_key=item,
        group=SHOP if policy.grouped else (),
        now=now,
    )


def test_ungrouped_is_released_at_once() -> None:
    noise: NoiseControl[str] = NoiseControl()
    admission = _offer(noise, "a", 0)
    assert admission.release is not None
    assert admission.release.items == ("a",)
    assert not admission.release.is_digest


def test_same_key_within_window_is_deduplicated() -> None:
    noise: NoiseControl[str] = NoiseControl()
    _offer(noise, "a", 0)
    assert _offer(noise, "a", 59.9).suppressed is SuppressReason.DEDUP
    assert _offer(noise, "a", 60).release is not None
    assert _offer(noise, "b", 61).release is not None


def test_zero_window_never_deduplicates() -> None:
    noise: NoiseControl[str] = NoiseControl()
    policy = NoisePolicy(dedup_window=0)
    assert _offer(noise, "a", 0, policy).release is not None
    assert _offer(noise, "a", 0, policy).release is not None


def test_dedup_memory_is_pruned() -> None:
    noise: NoiseControl[str] = NoiseControl()
    for index in range(1000):
        _offer(noise, f"pod-{index}", index * 0.01)
    noise.tick(100)
    assert len(noise._sent) == 0


def test_group_waits_then_releases_one_digest() -> None:
    noise: NoiseControl[str] = NoiseControl()
    outcomes = [_offer(noise, f"pod-{i}", i * 0.1, GROUPED) for i in range(200)]
    assert all(outcome.release is None for outcome in outcomes)
    assert outcomes[0].suppressed is None
    assert {o.suppressed for o in outcomes[1:]} == {SuppressReason.GROUP}
    assert noise.next_due() == 30
    assert noise.tick(29.9) == []
    [digest] = noise.tick(30)
    assert digest.is_digest
    assert digest.total == 200
    assert digest.items == ("pod-0", "pod-1", "pod-2")  # max_listed, the rest counted
    assert digest.group == SHOP
    assert noise.next_due() is None


def test_group_interval_paces_later_members() -> None:
    noise: NoiseControl[str] = NoiseControl()
    _offer(noise, "a", 0, GROUPED)
    assert len(noise.tick(30)) == 1
    _offer(noise, "b", 40, GROUPED)
    _offer(noise, "c", 50, GROUPED)
    assert noise.tick(100) == []
    assert noise.next_due() == 330
    [release] = noise.tick(330)
    assert release.items == ("b", "c")


def test_lone_member_is_not_a_digest() -> None:
    noise: NoiseControl[str] = NoiseControl()
    _offer(noise, "a", 0, GROUPED)
    [release] = noise.tick(30)
    assert not release.is_digest


def test_repeat_interval_keeps_released_members_quiet() -> None:
    noise: NoiseControl[str] = NoiseControl()
    _offer(noise, "a", 0, GROUPED)
    noise.tick(30)
    assert (
        _offer(noise, "a", 100, GROUPED).suppressed is SuppressReason.DEDUP
    )  # past the dedup window
    assert noise.tick(1000) == []
    assert _offer(noise, "a", 3631, GROUPED).suppressed is None
    assert len(noise.tick(3961)) == 1


def test_idle_group_closes_after_repeat_interval() -> None:
    noise: NoiseControl[str] = NoiseControl()
    _offer(noise, "a", 0, GROUPED)
    noise.tick(30)
    noise.tick(3629)
    assert len(noise._groups) == 1
    noise.tick(3630)
    assert noise._groups == {}
    _offer(noise, "b", 4000, GROUPED)
    assert noise.next_due() == 4030  # a new group waits group_wait again


def test_groups_are_per_rule_and_labels() -> None:
    noise: NoiseControl[str] = NoiseControl()
    noise.offer("a", rule="r1", policy=GROUPED, dedup_key="a1", group=SHOP, now=0)
    noise.offer("b", rule="r2", policy=GROUPED, dedup_key="b2", group=SHOP, now=0)
    noise.offer("c", rule="r1", policy=GROUPED, dedup_key="c1", group=(("namespace", "ci"),), now=0)
    assert len(noise.tick(30)) == 3
