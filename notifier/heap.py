"""Giving back the memory a start used and freed.

A start's peak (the list pages decoded, every object queued, compared and
encoded for the state file) is freed once the initial list is acted on, but
glibc's malloc keeps the freed pages in its arenas, one per thread that
allocated, instead of returning them: at 100,000 Pods the steady RSS held
about 100 MiB more than the live objects needed (docs/benchmarks.md,
"Where the memory and the time go"). ``malloc_trim(0)`` returns the free
pages of every arena to the system, once, at a moment the process is quiet.

Each relist after a 410 left a step that no trim gave back: glibc raises its
mmap threshold to the size of the largest buffer freed (a list page, ~5 MB at
500 Pods a page), so later pages came from the heap, whose freed space stayed
resident (+6 MiB per relist at 100,000 Pods, the heap 7 MiB larger and all of
it free). ``keep_large_buffers_out_of_the_heap`` sets the threshold at start,
which turns that adjustment off: buffers of 128 KiB and more are mapped and
unmapped on their own, and the relist step is gone.

Where the C library has no ``malloc_trim`` or ``mallopt`` (musl, macOS), these
do nothing.

The cyclic GC is paused for the start (``pause_collection``): the cache the
initial lists build is long-lived and holds no cycles, yet every full
collection while it grows rescans it (one each time the long-lived objects
grow by a quarter), and each new object is scanned twice more on its way
there: 0.25-0.35 CPU s of a 12,000-object start, about a sixth of it. What
the imports made (the modules, classes and functions, and the ~800 objects,
~0.2 MB, they left in cycles: no collection runs between the imports and
``run``, see ``cli/run.py``) is frozen out of the GC's reach first;
the pause ends once the lists are cached and frozen (``kinds/sharing.py``'s
``freeze_heap``, whose full collection frees the few garbage cycles the start
made), or after ``Settings.collection_paused_seconds`` if the lists take longer
(``workers/settling.py``).
"""

from __future__ import annotations

import ctypes
import gc
import logging
from collections.abc import Callable

log = logging.getLogger("notifier.service")

M_MMAP_THRESHOLD = -3  # glibc's malloc.h
MMAP_THRESHOLD_BYTES = 128 * 1024  # glibc's own default, kept fixed instead of raised


def _libc_function(name: str) -> Callable[..., int] | None:
    try:
        # The symbols the process already has (the C library's among them): no lookup
        # of a library file, which would run ldconfig in a subprocess.
        function: Callable[..., int] = getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError):  # not glibc
        return None
    return function


def keep_large_buffers_out_of_the_heap() -> bool:
    """Fix glibc's mmap threshold (see the module docstring); whether it could."""
    mallopt = _libc_function("mallopt")
    if mallopt is None or not mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES):
        log.debug("no mallopt in this C library: large buffers may stay in the heap")
        return False
    return True


def give_back_freed_memory() -> bool:
    """Return the allocator's free pages to the system; whether it could try."""
    trim = _libc_function("malloc_trim")
    if trim is None:
        log.debug("no malloc_trim in this C library: freed memory stays with the allocator")
        return False
    trim(0)
    return True


def pause_collection() -> None:
    """Freeze what the imports made and pause the cyclic GC (see the module docstring)."""
    gc.freeze()
    gc.disable()


def resume_collection() -> None:
    gc.enable()
