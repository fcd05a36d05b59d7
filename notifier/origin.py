"""How an object change was seen: the source's word for it, which rules match on.

The source marks every delta with it (a watch event, the first list, a relist,
a resync, a catch-up after downtime); transitions carry it, rules select by it
(``match.origins``) and stay quiet on all but ``live`` by default.
"""

from __future__ import annotations

from enum import StrEnum


class Origin(StrEnum):
    """Why the worker saw this object; rules stay quiet on all but LIVE by default."""

    LIVE = "live"  # a watch event
    INITIAL_LIST = "initial_list"  # the first list after start: the world as it already was
    RESYNC = "resync"  # a periodic replay of the cache, nothing changed
    RELIST = "relist"  # a relist after 410 Gone found this difference
    CATCH_UP = "catch_up"  # changed while this process was down (compared with durable state)
