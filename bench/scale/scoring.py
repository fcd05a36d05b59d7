"""Counting what the receiver got against what the rule should have told.

Change n sets ``seq=n`` on the Pod the stand-in takes n-th in its round-robin
over ``cycle`` Pods, so changes n, n + cycle, n + 2*cycle, ... are to the
same Pod. A change the rule matches that was not told is *coalesced* when a
later change to the same Pod was told (the workqueue folds changes to one
object that come faster than it handles them, by design), else *lost*.
"""

from __future__ import annotations

from collections.abc import Sequence


def score_changes(received: Sequence[int], expected: Sequence[int], cycle: int) -> dict[str, int]:
    got, wanted = set(received), set(expected)
    missing = wanted - got
    top = max(got | wanted, default=0)
    coalesced = {
        seq for seq in missing if any(later in got for later in range(seq + cycle, top + 1, cycle))
    }
    return {
        "expected": len(wanted),
        "told": len(wanted & got),
        "coalesced": len(coalesced),
        "lost": len(missing - coalesced),
        "duplicates": len(received) - len(got),
        "unexpected": len(got - wanted),
    }
