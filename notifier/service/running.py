"""``kube-notifier run``: build every part, start them in order, stop them in reverse.

Start: config -> credentials and an access check -> state -> delivery ->
workers -> informers -> HTTP. The HTTP layer (Starlette, uvicorn: a tenth
of a second of imports; the page's FastAPI waits for its first request) is
imported only once the informers are listing, so the API server serializes
the first pages while we import. Once informers are synced, what we knew
before a restart and is gone now is queued as catch-up deletes, and the
cache is frozen out of the cyclic GC's reach; memory is given back after the
initial list and after each relist, once acted on (``workers/settling.py``).
Group members a previous process held are held again before workers start.
SIGTERM (or SIGINT): readiness goes false, informers stop, workers drain,
open groups are released and committed to the outbox, delivery drains until
the deadline (the rest stays in the outbox), exit 0. A second signal ends
the process at once.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from notifier import build_info  # noqa: F401 - registers build info
from notifier.api.listening import listen_problem
from notifier.config.errors import ConfigError
from notifier.config.sink_errors import sink_build_error
from notifier.exits import Exit
from notifier.heap import keep_large_buffers_out_of_the_heap, pause_collection
from notifier.logs import setup_logging
from notifier.reload.holder import RulesHolder
from notifier.reload.polling import report
from notifier.scheduling import choose as choose_scheduling
from notifier.service.options import RunOptions
from notifier.sinks.building import sink_problems
from notifier.sinks.secrets import SinkBuildError
from notifier.source.access import KubeAccessError, check_access, cluster_access
from notifier.source.client import RawClient
from notifier.state import StateConfig, StateStore, StateUnavailableError

if TYPE_CHECKING:
    pass

from notifier.service.assembly import Service

log = logging.getLogger("notifier.service")

EXIT_CONFIG = Exit.CONFIG
EXIT_ACCESS = Exit.CLUSTER
EXIT_STATE = Exit.STATE


def run(opts: RunOptions) -> int:
    setup_logging(opts.log_level, opts.log_format)
    choose_scheduling(opts.scheduling)  # before any thread starts: they inherit it
    keep_large_buffers_out_of_the_heap()  # before the first list's pages
    pause_collection()  # until the first lists are cached and frozen (workers/settling.py)
    try:
        service = _started(opts)
    except _StartError as refusal:
        print(f"kube-notifier: {refusal}", file=sys.stderr)
        return refusal.code
    return service.serve()


class _StartError(Exception):
    """The service cannot start: one line for stderr and the exit code (docs/cli.md)."""

    def __init__(self, code: Exit, message: str) -> None:
        super().__init__(message)
        self.code = code


def _started(opts: RunOptions) -> Service:
    """Each check in the order a user fixes things: the file, the port, the cluster, the state."""
    holder = _loaded(opts.config)
    problem = listen_problem(opts.listen_host, opts.listen_port)
    if problem is not None:
        raise _StartError(Exit.LISTEN, problem)
    watch = holder.current.config.watch
    try:
        raw = RawClient(cluster_access(opts.kubeconfig, opts.context))
        uses_labels = holder.current.config.uses_namespace_labels()
        check_access(
            raw,
            watch.watched(),
            watch.namespaces,
            namespace_labels=uses_labels,
            known=holder.current.kinds,
        )
    except KubeAccessError as err:
        raise _StartError(EXIT_ACCESS, str(err)) from None
    try:
        state = _open_state(opts.state_path, holder.current.config.state)
    except StateUnavailableError as err:
        raise _StartError(EXIT_STATE, f"state database unusable: {err}") from None
    try:
        return Service(opts, holder, raw, state)
    except SinkBuildError as err:
        if state is not None:
            state.close()
        raise _StartError(EXIT_CONFIG, f"invalid config {opts.config}: {err}") from None


def _loaded(path: Path) -> RulesHolder:
    """The config, valid and every enabled sink in it built (as ``rules check`` says)."""
    try:
        holder = RulesHolder.from_file(path)
    except ConfigError as err:
        raise _StartError(EXIT_CONFIG, f"invalid config:\n{err}") from None
    except OSError as err:
        raise _StartError(EXIT_CONFIG, f"cannot read config {path}: {err}") from None
    loaded = holder.current
    problems = sink_problems(loaded.config.sinks)
    if problems:
        located = sink_build_error(path, loaded.config, problems, text=loaded.text)
        raise _StartError(EXIT_CONFIG, f"invalid config:\n{located}")
    report(holder.last_result, str(path))
    return holder


def _open_state(flag: str, configured: StateConfig) -> StateStore | None:
    if flag == "none":
        return None
    return StateStore(configured.model_copy(update={"path": Path(flag)}) if flag else configured)
