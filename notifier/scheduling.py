"""Asking the kernel not to let a woken thread preempt the one that woke it.

A change crosses three threads (the informer, a worker, a sender), each
woken by the one before through a futex. Under Linux's default policy the
woken thread often preempts its waker on the same core, only to find the
GIL still held by it: it sleeps again, and the waker finishes. That is two
context switches and a cold start of each thread for nothing, one to two
involuntary switches per change in ``bench.threadcost``.

``SCHED_BATCH`` is the same fair policy, at the same priority and the same
time slices, without wake-up preemption: a woken thread runs on an idle
core or when the running one sleeps. Any thread may choose it (no
privilege needed), and threads started after it inherit it, so it is set
first thing in ``run``. docs/benchmarks.md has the measurements: 9-11%
less CPU per change, at the same latency in the e2e bench. ``--scheduling
normal`` keeps the default policy. Where the platform has no
``SCHED_BATCH`` (not Linux), nothing changes.
"""

from __future__ import annotations

import logging
import os

log = logging.getLogger("notifier.service")


def choose(policy: str) -> bool:
    """Set the calling thread's policy (``batch`` or ``normal``); whether ``batch`` is now in
    force for it and the threads it starts."""
    if policy != "batch":
        return False
    batch = getattr(os, "SCHED_BATCH", None)
    if batch is None or not hasattr(os, "sched_setscheduler"):
        log.debug("no SCHED_BATCH on this platform: the default scheduling policy stays")
        return False
    try:
        os.sched_setscheduler(0, batch, os.sched_param(0))
    except OSError as err:  # a seccomp profile may refuse the system call
        log.info("could not choose SCHED_BATCH (%s): the default scheduling policy stays", err)
        return False
    return True
