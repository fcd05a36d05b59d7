"""What a ``fold_into: owner`` message says of the objects in its incident.

The fact ``folded``: how many objects (``count``), the first ``SHOWN`` of their names
(``names``, sorted) and how many more (``more``); and, when there is more than one, a
detail line every text receiver shows (``Pods: 3: web-a, web-b, web-c``).
"""

from __future__ import annotations

from collections.abc import Sequence

from notifier.notifications import Facts

SHOWN = 10  # names a message lists; the rest are counted


def folded_facts(facts: Facts, objects: Sequence[tuple[str, str]]) -> Facts:
    """``facts`` with the objects (kind, name) of the owner's incident they tell."""
    names = [name for _, name in objects]
    shown, more = names[:SHOWN], max(len(names) - SHOWN, 0)
    folded = {"count": len(names), "names": shown, "more": more}
    details = list(facts.get("details") or [])
    if len(names) > 1:  # before the owner, so a receiver that shows few lines shows it
        at = next((i for i, pair in enumerate(details) if pair[0] == "Owner"), len(details))
        details.insert(at, [_label(objects), f"{len(names)}: {_listed(shown, more)}"])
    return {**facts, "folded": folded, "details": details}


def _label(objects: Sequence[tuple[str, str]]) -> str:
    kinds = {kind for kind, _ in objects}
    return f"{kinds.pop()}s" if len(kinds) == 1 else "Objects"


def _listed(shown: Sequence[str], more: int) -> str:
    text = ", ".join(shown)
    return f"{text} and {more} more" if more else text
