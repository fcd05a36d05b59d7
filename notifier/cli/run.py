"""``kube-notifier run``'s flags, each with an environment variable and a sane default, and
its handler, which imports the service only once ``run`` is chosen."""

from __future__ import annotations

import argparse
import os
import platform
from pathlib import Path
from typing import TYPE_CHECKING

from notifier.importing import collection_paused

if TYPE_CHECKING:
    from notifier.service.options import RunOptions


def _env(name: str, default: str) -> str:
    return os.environ.get(f"KUBE_NOTIFIER_{name}", default)


def _listen(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not port.isdigit():
        raise argparse.ArgumentTypeError(f"--listen wants HOST:PORT, got {value!r}")
    return host or "0.0.0.0", int(port)


def add_run_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = subparsers.add_parser(
        "run",
        help="watch the cluster and send notifications",
        description="Every flag can also be set with the environment variable named in its help.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    run.add_argument(
        "--config",
        type=Path,
        default=Path(_env("CONFIG", "/etc/kube-notifier/config.yaml")),
        help="config file with sinks and rules [KUBE_NOTIFIER_CONFIG]",
    )
    run.add_argument(
        "--kubeconfig",
        default=None,
        help="kubeconfig file, or a list merged as kubectl merges $KUBECONFIG; default "
        "$KUBECONFIG, else ~/.kube/config, else the in-cluster service account inside a pod",
    )
    run.add_argument(
        "--context",
        default=_env("CONTEXT", "") or None,
        help="kubeconfig context [KUBE_NOTIFIER_CONTEXT]",
    )
    run.add_argument(
        "--listen",
        type=_listen,
        default=_env("LISTEN", "0.0.0.0:8080"),
        help="HOST:PORT for /healthz, /readyz, /metrics; the default listens on every "
        "interface, as a pod needs for probes and scraping (use 127.0.0.1:8080 on a laptop) "
        "[KUBE_NOTIFIER_LISTEN]",
    )
    run.add_argument(
        "--shutdown-deadline",
        type=float,
        default=float(_env("SHUTDOWN_DEADLINE", "20")),
        help="seconds to drain work after SIGTERM [KUBE_NOTIFIER_SHUTDOWN_DEADLINE]",
    )
    run.add_argument(
        "--log-level",
        default=_env("LOG_LEVEL", "info"),
        choices=["debug", "info", "warning", "error"],
        help="least severe log line written [KUBE_NOTIFIER_LOG_LEVEL]",
    )
    run.add_argument(
        "--log-format",
        default=_env("LOG_FORMAT", "auto"),
        choices=["auto", "json", "text"],
        help="auto: text on a terminal, JSON otherwise [KUBE_NOTIFIER_LOG_FORMAT]",
    )
    run.add_argument(
        "--watchdog",
        type=float,
        default=float(_env("WATCHDOG", "90")),
        help="reopen a watch silent for this many seconds [KUBE_NOTIFIER_WATCHDOG]",
    )
    run.add_argument(
        "--stale-after",
        type=float,
        default=float(_env("STALE_AFTER", "300")),
        help="not ready when a watch was silent this long [KUBE_NOTIFIER_STALE_AFTER]",
    )
    run.add_argument(
        "--wedged-after",
        type=float,
        default=float(_env("WEDGED_AFTER", "300")),
        help="not alive when a worker is stuck on one key this long [KUBE_NOTIFIER_WEDGED_AFTER]",
    )
    run.add_argument(
        "--scheduling",
        default=_env("SCHEDULING", "batch"),
        choices=["batch", "normal"],
        help="batch: a woken thread does not preempt the one that woke it (Linux SCHED_BATCH, "
        "less CPU per change); normal: the default policy [KUBE_NOTIFIER_SCHEDULING]",
    )
    run.add_argument(
        "--debug-decisions",
        action="store_true",
        default=_env("DEBUG_DECISIONS", "") == "true",
        help="serve /debug/decisions [KUBE_NOTIFIER_DEBUG_DECISIONS=true]",
    )
    run.add_argument(
        "--page",
        action=argparse.BooleanOptionalAction,
        default=_env("PAGE", "true") == "true",
        help="serve the on-call's page at /page/now (read-only; object names are on it) "
        "[KUBE_NOTIFIER_PAGE=false turns it off]",
    )
    run.add_argument(
        "--page-writes",
        action="store_true",
        default=_env("PAGE_WRITES", "") == "true",
        help="let the page add and expire silences (needs --silences and the RBAC to update "
        "that ConfigMap) and replay dead letters [KUBE_NOTIFIER_PAGE_WRITES=true]",
    )
    run.add_argument(
        "--state",
        default=_env("STATE", ""),
        help="SQLite file for the outbox and last-seen state, overriding the config's "
        "state.path; 'none' keeps it in memory (nothing survives a restart) "
        "[KUBE_NOTIFIER_STATE]",
    )
    run.add_argument(
        "--config-map",
        type=_namespaced,
        default=_env("CONFIG_MAP", "") or None,
        help="NAMESPACE/NAME of the rules ConfigMap to watch through the API (key config.yaml): "
        "reloads in about a second, and a rejected change gets a Warning Event on it "
        "[KUBE_NOTIFIER_CONFIG_MAP]",
    )
    run.add_argument(
        "--silences",
        type=_namespaced,
        default=_env("SILENCES", "") or None,
        help="NAMESPACE/NAME of the ConfigMap `kube-notifier silence` writes (key "
        "silences.json), watched: a silence mutes at once on every replica "
        "[KUBE_NOTIFIER_SILENCES]",
    )
    _add_leader_flags(run)
    run.set_defaults(handler=_run)


def _add_leader_flags(run: argparse.ArgumentParser) -> None:
    run.add_argument(
        "--leader-elect",
        action="store_true",
        default=_env("LEADER_ELECT", "") == "true",
        help="for 2+ replicas: only the Lease holder sends [KUBE_NOTIFIER_LEADER_ELECT=true]",
    )
    run.add_argument(
        "--lease-namespace",
        default=os.environ.get("POD_NAMESPACE", "default"),
        help="namespace of the Lease [POD_NAMESPACE]",
    )
    run.add_argument(
        "--lease-name",
        default=_env("LEASE_NAME", "kube-notifier"),
        help="name of the Lease the replicas share [KUBE_NOTIFIER_LEASE_NAME]",
    )
    run.add_argument(
        "--identity",
        default=os.environ.get("POD_NAME") or f"{platform.node()}-{os.getpid()}",
        help="this replica's name in the Lease [POD_NAME]",
    )
    run.add_argument(
        "--lease-duration",
        type=float,
        default=float(_env("LEASE_DURATION", "15")),
        help="seconds a standby waits for a silent leader [KUBE_NOTIFIER_LEASE_DURATION]",
    )
    run.add_argument(
        "--standby-window",
        type=float,
        default=float(_env("STANDBY_WINDOW", "30")),
        help="seconds of notifications a standby keeps and sends when it takes over "
        "[KUBE_NOTIFIER_STANDBY_WINDOW]",
    )


def _namespaced(value: str) -> tuple[str, str]:
    namespace, _, name = value.partition("/")
    if not namespace or not name:
        raise argparse.ArgumentTypeError(f"want NAMESPACE/NAME, got {value!r}")
    return namespace, name


def options_from(args: argparse.Namespace) -> RunOptions:
    from notifier.service.options import RunOptions  # noqa: PLC0415 - not for the other commands

    host, port = args.listen if isinstance(args.listen, tuple) else _listen(args.listen)
    return RunOptions(
        config=args.config,
        kubeconfig=args.kubeconfig,
        context=args.context,
        listen_host=host,
        listen_port=port,
        shutdown_deadline=args.shutdown_deadline,
        log_level=args.log_level,
        log_format=args.log_format,
        watchdog_seconds=args.watchdog,
        stale_after_seconds=args.stale_after,
        wedged_after_seconds=args.wedged_after,
        scheduling=args.scheduling,
        debug_decisions=args.debug_decisions,
        page=args.page,
        page_writes=args.page_writes,
        state_path=args.state,
        config_map=_namespaced(args.config_map)
        if isinstance(args.config_map, str)
        else args.config_map,
        silences=_namespaced(args.silences) if isinstance(args.silences, str) else args.silences,
        leader_elect=args.leader_elect,
        lease_namespace=args.lease_namespace,
        lease_name=args.lease_name,
        identity=args.identity,
        lease_duration=args.lease_duration,
        standby_window=args.standby_window,
    )


def _run(args: argparse.Namespace) -> int:
    """Import what ``run`` needs and run it, the cyclic GC paused from the first import on
    (notifier/importing.py): ``run`` freezes what the imports made before it resumes the
    GC (heap.py). Resumed in between, the GC's first collection rescanned all of
    it (30-40 ms) to free about 800 objects (~0.2 MB) the imports left in cycles."""
    with collection_paused():
        from notifier.service.running import run  # noqa: PLC0415 - heavy imports only for run

        return run(options_from(args))
