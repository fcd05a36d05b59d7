"""``rules test --explain``: the body each sink of each matched rule would send.

Each receiver renders its own body (``Receiver.preview``), from the same
notification the service would hand it, fingerprint included; with
``--resolved``, the resolution's. Sinks are built without reading their
secret files (nothing is sent).
"""

from __future__ import annotations

from typing import TextIO

from notifier.config.loading import LoadedConfig
from notifier.rules.facts.previewing import preview_notifications
from notifier.rules.ruleset import Evaluation
from notifier.sinks.base import Receiver, Sink
from notifier.sinks.building import build_sink
from notifier.sinks.secrets import SinkBuildError, files_unread
from notifier.sinks.thread_roots import MemoryThreads
from notifier.transitions.model import Transition


def print_bodies(
    loaded: LoadedConfig,
    transition: Transition,
    evaluation: Evaluation,
    owner: tuple[str, str] | None,
    *,
    resolved: bool,
    out: TextIO,
) -> None:
    ruleset = loaded.ruleset
    sinks = _built(loaded)
    try:
        for rule in evaluation.routes:
            notes = preview_notifications(ruleset, transition, rule, owner, resolved=resolved)
            for note in notes:
                sink = sinks.get(note.sink)
                status = "resolved" if note.resolves else "firing"
                print(f"\n--- {status} body of rule {rule.name} for sink {note.sink}", file=out)
                print(f"fingerprint: {note.fingerprint}", file=out)
                if isinstance(sink, Receiver):
                    print(sink.preview(note), file=out)
    finally:
        for sink in sinks.values():
            sink.close()


def _built(loaded: LoadedConfig) -> dict[str, Sink]:
    sinks: dict[str, Sink] = {}
    with files_unread():
        for config in loaded.config.sinks:
            if config.enabled:
                try:
                    sinks[config.name] = build_sink(config, threads=MemoryThreads())
                except SinkBuildError:
                    continue  # said by the load already
    return sinks
