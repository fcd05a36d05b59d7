"""``kube-notifier rules check FILE``: load a config as the service would, and say so.

Prints every error with its location (exit 5), or a one-line summary and any
warnings (exit 0); with ``--service-account``, whether that account may fetch
what the rules' ``enrich:`` asks for. Its imports are only what loading a
config takes (the config models, the rules' compiler, the sinks' builders):
none of the rules' engine, the transitions or the cluster's client until a
check needs them, so checking a 20,000-rule file stays under 2 s of CPU
(docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from notifier.config import ConfigError, LoadedConfig, read_config
from notifier.config.model import Config
from notifier.config.sink_errors import sink_build_error
from notifier.enrichment.access import NEEDS
from notifier.exits import Exit
from notifier.sinks.building import sink_problems


def run_check(
    args: argparse.Namespace, out: TextIO | None = None, *, done: Callable[[int], int] = int
) -> int:
    """Check ``args.file``; the exit code goes through ``done`` while what the check built
    is alive (the command line ends the process there: ``notifier.cli.entry``)."""
    out = out or sys.stdout
    loaded = checked(args.file, read_files=not args.no_files)
    if not isinstance(loaded, LoadedConfig):
        print(loaded, file=out)
        return done(Exit.CONFIG)
    config = loaded.config
    enabled = sum(1 for sink in config.sinks if sink.enabled)
    print(
        f"{args.file}: OK: {len(config.rules)} rules, {len(config.sinks)} sinks "
        f"({enabled} enabled)",
        file=out,
    )
    for warning in loaded.warnings:
        print(warning, file=out)
    for part, rules in config.context_parts().items():
        print(
            f"{args.file}: rules {', '.join(rules)} enrich with {part}: the service account "
            f"needs {NEEDS[part]} (the chart grants it for rules in its values)",
            file=out,
        )
    if args.service_account and config.context_parts():
        return done(_check_access(args, config, out))
    return done(0)


def checked(path: Path, *, read_files: bool = True) -> LoadedConfig | ConfigError | str:
    """The config as ``run`` would start with it, sinks built; else what is wrong with it."""
    try:
        loaded = read_config(path)
    except ConfigError as exc:
        return exc
    except OSError as exc:
        return f"{path}: cannot read: {exc.strerror or exc}"
    problems = sink_problems(loaded.config.sinks, read_files=read_files)
    if problems:
        return sink_build_error(path, loaded.config, problems)
    return loaded


def _check_access(args: argparse.Namespace, config: Config, out: TextIO) -> int:
    import urllib3  # noqa: PLC0415

    from notifier.enrichment.wiring import missing_access  # noqa: PLC0415 - the API client
    from notifier.source.access import KubeAccessError, cluster_access, failure  # noqa: PLC0415
    from notifier.source.client import ApiError, RawClient  # noqa: PLC0415

    try:
        client = RawClient(cluster_access(args.kubeconfig, args.context))
    except KubeAccessError as err:
        print(f"error: {err}", file=out)
        return Exit.CLUSTER
    try:  # an answer here means the access reviews below are answered too
        client.get("/api", {})
    except (ApiError, urllib3.exceptions.HTTPError, OSError) as err:
        print(f"error: cannot ask about {args.service_account}: {failure(client.server, err)}",
              file=out)  # fmt: skip
        return Exit.CLUSTER
    missing = missing_access(client, config, account=args.service_account)
    for line in missing:
        print(f"{args.file}: {line}", file=out)
    return Exit.FAILED if missing else Exit.OK
