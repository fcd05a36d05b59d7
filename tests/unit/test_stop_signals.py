"""SIGTERM stops the service even when the kernel hands the signal to another thread.

A process-directed signal goes to whichever thread can take it; after ``py-spy dump``
attached and detached, a service's SIGTERM went to another thread, the main thread (blocked
in an unbounded wait) never ran the handler, and the process ignored SIGTERM until killed.
The probe reproduces that exactly: a thread sends SIGTERM to itself while the main thread
waits; the process must end on its own.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

PROBE = textwrap.dedent("""
    import signal, threading, time
    from pathlib import Path
    from notifier.service.signals import StopSignals

    signals = StopSignals()
    signals.install()
    main = threading.get_native_id()
    waiting = threading.Event()

    def blocked(tid: int) -> bool:
        stat = Path(f"/proc/self/task/{tid}/stat").read_text()
        return stat[stat.rindex(")") + 2] == "S"

    def to_this_thread() -> None:
        waiting.wait(10)
        deadline = time.monotonic() + 10
        while not blocked(main) and time.monotonic() < deadline:  # in its wait, asleep
            time.sleep(0.01)
        signal.pthread_kill(threading.get_ident(), signal.SIGTERM)

    threading.Thread(target=to_this_thread, daemon=True).start()
    waiting.set()
    signals.wait()
    print("stopped", flush=True)
""")


def test_a_sigterm_taken_by_another_thread_still_stops_the_main_thread() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=20, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "stopped"
