"""The firing board: what was told and still holds, resolved when it ends, bounded."""

from __future__ import annotations

from notifier.api.board import FiringBoard
from notifier.api.page.views import FiringItem, Told
from notifier.api.paged import Where
from notifier.rules.decisions import Decision
from notifier.transitions.model import Transition
from tests.unit.rules.builders import POD_JSON, changed, crashloop, transition
from tests.unit.sinks.factories import notification

HEALTHY = {"Running", "Ready"}


def _told(*sinks: str) -> Decision:
    return Decision(matched=("pod-crash",), notifications=[notification(s) for s in sinks])


def _recovered(name: str = "web-7d4b9c6f5d-x2x9q") -> Transition:
    pod = changed(POD_JSON, metadata={"name": name})
    return transition(pod, pod, old_states={"CrashLoopBackOff"}, new_states=HEALTHY)


def test_a_told_crash_loop_is_firing_with_its_sinks_until_it_recovers() -> None:
    board = FiringBoard()
    board.record(crashloop(), _told("hook", "slack"))
    (item,) = board.firing(Where(), 0, 10).items
    assert (item.rule, item.kind, item.namespace) == ("pod-crash", "Pod", "shop")
    assert "CrashLoopBackOff" in item.states and [t.sink for t in item.told] == ["hook", "slack"]
    board.record(_recovered(), Decision(matched=()))
    assert board.firing(Where(), 0, 10).total == 0
    (resolved,) = board.resolved(Where(), 10)
    assert resolved.resolved_at is not None and resolved.rule == "pod-crash"


def test_each_sink_keeps_its_latest_notification() -> None:
    board = FiringBoard()
    board.record(crashloop(), Decision(matched=("pod-crash",), notifications=[
        notification("hook", id="n-a"), notification("slack", id="n-b")]))  # fmt: skip
    board.record(crashloop(), Decision(matched=("pod-crash",),
                                       notifications=[notification("hook", id="n-c")]))  # fmt: skip
    (item,) = board.firing(Where(), 0, 10).items
    assert item.told == (Told("slack", "n-b"), Told("hook", "n-c"))


def test_a_silenced_crash_loop_is_firing_muted_with_its_silence_until_told() -> None:
    board = FiringBoard()
    silenced = Decision(matched=("pod-crash",), suppressed=[("pod-crash", "silenced by s-42")])
    board.record(crashloop(), silenced)
    (item,) = board.firing(Where(), 0, 10).items
    assert (item.muted_by, item.told, item.rule) == ("s-42", (), "pod-crash")
    board.record(crashloop(), _told("hook"))  # the silence ended; told at last
    (item,) = board.firing(Where(), 0, 10).items
    assert (item.muted_by, [t.sink for t in item.told]) == ("", ["hook"])
    board.record(crashloop(), silenced)  # silenced again: still told before it, muted now
    (item,) = board.firing(Where(), 0, 10).items
    assert (item.muted_by, [t.sink for t in item.told]) == ("s-42", ["hook"])
    board.record(_recovered(), Decision(matched=()))
    assert board.firing(Where(), 0, 10).total == 0


def test_nothing_told_nothing_firing_and_a_signal_alone_holds_nothing() -> None:
    board = FiringBoard()
    board.record(crashloop(), Decision(matched=("pod-crash",), suppressed=[("", "startup")]))
    pod = changed(POD_JSON)
    restart = transition(pod, pod, old_states=HEALTHY, new_states=HEALTHY, signals={"Restart"})
    board.record(restart, _told("hook"))
    assert board.firing(Where(), 0, 10).total == 0


def test_filters_and_pages() -> None:
    board = FiringBoard()
    for index in range(5):
        board.record(crashloop(metadata={"name": f"web-{index}"}), _told("hook"))
    assert board.firing(Where(namespace="shop", kind="Pod", rule="pod-crash"), 0, 10).total == 5
    assert board.firing(Where(namespace="other"), 0, 10).total == 0
    assert board.firing(Where(rule="other"), 0, 10).total == 0
    page = board.firing(Where(), 2, 2)
    assert len(page.items) == 2 and page.has_next and page.total == 5


def test_past_its_bound_the_oldest_object_is_forgotten() -> None:
    board = FiringBoard(max_objects=3)
    for index in range(5):
        board.record(crashloop(metadata={"name": f"web-{index}"}), _told("hook"))
    names = {item.name for item in board.firing(Where(), 0, 10).items}
    assert names == {"web-2", "web-3", "web-4"}


def test_the_preview_names_what_a_silence_would_mute_now() -> None:
    board = FiringBoard()
    for name in ("api-1", "web-1"):
        board.record(crashloop(metadata={"name": name}), _told("hook"))
    hits = board.preview({"namespace": "shop", "name": "api-*"}, 10)
    assert [item.name for item in hits.items] == ["api-1"]
    assert board.preview({"kind": "Job"}, 10).total == 0


def test_the_states_are_the_rules_to_when_it_names_some() -> None:
    board = FiringBoard(lambda rule: frozenset({"CrashLoopBackOff"}))
    board.record(crashloop(), _told("hook"))
    assert board.firing(Where(), 0, 1).items[0].states == ("CrashLoopBackOff",)
    pod = changed(POD_JSON)
    still_running = transition(pod, pod, old_states={"CrashLoopBackOff", "Running"},
                               new_states={"Running"})  # fmt: skip
    board.record(still_running, Decision(matched=()))
    assert board.firing(Where(), 0, 1).total == 0 and len(board.resolved(Where(), 5)) == 1


def test_what_was_told_before_a_restart_is_seeded_and_resolves_as_any_other() -> None:
    board = FiringBoard()
    before = FiringItem("pod-crash", "Pod", "shop", "web-7d4b9c6f5d-x2x9q",
                        ("CrashLoopBackOff",), 1.0, ())  # fmt: skip
    board.seed([before])
    assert board.firing(Where(namespace="shop"), 0, 5).items == [before]
    assert board.preview({"namespace": "shop"}, 5).total == 0  # no object known yet
    board.record(_recovered(), Decision(matched=()))
    assert board.firing(Where(), 0, 5).total == 0
    assert board.resolved(Where(), 5)[0].name == "web-7d4b9c6f5d-x2x9q"
