"""Importing a command's modules with the cyclic GC paused.

A command's imports (``run``'s: Kubernetes' client, pydantic and our config
models, Jinja, about 700 modules) allocate millions of objects and leave
almost no garbage cycles, yet the allocations set off collections that
rescan everything imported so far: about a tenth of the import CPU (0.04 s
of ``run``'s 0.4 s, docs/benchmarks.md). The CLI imports a command's modules
only once that command is chosen, inside ``collection_paused``.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collection_paused() -> Iterator[None]:
    """No cyclic collection inside; the collector as it was after (a paused one stays paused)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
