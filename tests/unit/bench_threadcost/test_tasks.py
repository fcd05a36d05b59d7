"""Reading a process's threads: CPU ticks and context switches, summed by thread family."""

from __future__ import annotations

import json
import os
import threading

from bench.e2e.procstat import TICKS_PER_SECOND
from bench.threadcost import tasks
from bench.threadcost.__main__ import table
from bench.threadcost.tasks import Task, by_family, family, thread_names

STAT = "4242 (python (x) ) S 1 2 3 4 5 6 7 8 9 10 {utime} {stime} 0 0 20 0 1 0 5 6 7"
STATUS = "Name:\tpython\nState:\tS\nvoluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n"


def test_a_stat_line_gives_user_plus_system_even_with_parentheses_in_the_name() -> None:
    line = STAT.format(utime=3 * TICKS_PER_SECOND, stime=TICKS_PER_SECOND)
    assert tasks.parse_stat(line) == 4.0
    assert tasks.parse_system(line) == 1.0


def test_a_status_gives_both_kinds_of_context_switch() -> None:
    assert tasks.parse_switches(STATUS) == (12, 3)


def test_this_process_is_read_thread_by_thread() -> None:
    stop = threading.Event()
    helper = threading.Thread(target=stop.wait, name="helper-0")
    helper.start()
    try:
        found = tasks.read(os.getpid())
        assert os.getpid() in found  # the main thread's id is the process's
        assert helper.native_id in found
        assert all(task.cpu_s >= 0 and task.voluntary >= 0 for task in found.values())
    finally:
        stop.set()
        helper.join()


def test_families_fold_numbered_threads() -> None:
    assert family("worker-3") == family("worker-0") == "worker-*"
    assert family("state-writer") == "state-writer"


def test_py_spy_json_maps_os_thread_ids_to_names() -> None:
    dump = json.dumps([
        {"thread_name": "worker-1", "os_thread_id": 11, "frames": []},
        {"thread_name": "MainThread", "os_thread_id": 10, "frames": []},
        {"thread_name": "gone", "os_thread_id": None},
    ])  # fmt: skip
    assert thread_names(dump) == {11: "worker-1", 10: "MainThread"}
    assert thread_names("") == {}


def test_costs_are_differences_summed_by_family_and_new_threads_count_from_zero() -> None:
    before = {1: Task(1.0, 10, 1), 2: Task(2.0, 20, 2)}
    after = {1: Task(1.5, 14, 1), 2: Task(2.25, 21, 4), 3: Task(0.5, 5, 0), 4: Task(0.1, 1, 0)}
    names = {1: "worker-0", 2: "worker-1", 3: "sender"}
    costs = by_family(before, after, names)
    assert costs["worker-*"].cpu_s == 0.75
    assert (costs["worker-*"].voluntary, costs["worker-*"].involuntary) == (5, 2)
    assert costs["worker-*"].threads == 2
    assert costs["sender"].cpu_s == 0.5
    assert sum(c.threads for c in costs.values()) == 4  # the unnamed one is "other"


def test_the_table_gives_per_change_figures_and_a_total() -> None:
    family_ = {"cpu_s": 0.2, "voluntary": 300, "involuntary": 10, "threads": 1, "system_s": 0.05}
    window = {"changes": 100, "expected": 50, "told": 50, "seconds": 5.0,
              "families": {"worker-*": family_}}  # fmt: skip
    idle = {"changes": 0, "seconds": 10.0, "families": {"worker-*": family_ | {"cpu_s": 0.01}}}
    text = table({"idle": idle, "at_20": window}, (20.0,))
    row = next(line for line in text.splitlines() if line.startswith("worker-*"))
    assert row.split() == ["worker-*", "1.0", "2.00", "0.50", "3.00", "0.10"]
    assert "@20/s: 100 changes, 50 matched the rule, 50 told" in text
