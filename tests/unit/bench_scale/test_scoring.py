"""What the receiver got, against the changes the rule matched: told, coalesced, lost."""

from __future__ import annotations

from bench.scale.scoring import score_changes


def test_every_change_told_once() -> None:
    score = score_changes([1, 3, 2], [1, 2, 3], cycle=10)
    assert score == {
        "expected": 3,
        "told": 3,
        "coalesced": 0,
        "lost": 0,
        "duplicates": 0,
        "unexpected": 0,
    }


def test_a_change_folded_into_a_later_change_of_the_same_pod_is_coalesced_not_lost() -> None:
    # cycle 10: changes 2 and 12 are to the same Pod; 5 and 15 too, but 15 was not told.
    score = score_changes([1, 12], [1, 2, 5, 12], cycle=10)
    assert (score["told"], score["coalesced"], score["lost"]) == (2, 1, 1)


def test_repeats_and_changes_the_rule_should_not_tell_are_counted() -> None:
    score = score_changes([1, 1, 4], [1], cycle=10)
    assert (score["duplicates"], score["unexpected"]) == (1, 1)
