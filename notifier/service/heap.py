"""Giving back the memory a start used and freed.

A start's peak (the list pages decoded, every object queued, compared and
encoded for the state file) is freed once the initial list is acted on, but
glibc's malloc keeps the freed pages in its arenas, one per thread that
allocated, instead of returning them: at 100,000 Pods the steady RSS held
about 100 MiB more than the live objects needed (docs/benchmarks.md,
"Where the memory and the time go"). ``malloc_trim(0)`` returns the free
pages of every arena to the system, once, at a moment the process is quiet.

Where the C library has no ``malloc_trim`` (musl, macOS), this does nothing.
"""

from __future__ import annotations

import ctypes
import logging
from collections.abc import Callable

log = logging.getLogger("notifier.service")


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        # The symbols the process already has (the C library's among them): no lookup
        # of a library file, which would run ldconfig in a subprocess.
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    return trim


def give_back_freed_memory() -> bool:
    """Return the allocator's free pages to the system; whether it could try."""
    trim = _malloc_trim()
    if trim is None:
        log.debug("no malloc_trim in this C library: freed memory stays with the allocator")
        return False
    trim(0)
    return True
