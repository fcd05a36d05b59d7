"""``kube-notifier silence add|list|expire``: mute matching notifications for a while, as amtool.

The silences live in a ConfigMap (``--config-map``, or ``$KUBE_NOTIFIER_SILENCES``,
the chart's ``<fullname>-silences``) that every replica of the service
watches, so a silence mutes everywhere within a second or so and outlives
restarts. Edits are read-modify-write on the ConfigMap's resourceVersion
(``silences/writing.py``, which the page uses too: a conflicting edit is
retried; silences that ended a day ago are pruned). The
command uses your kubeconfig, so your RBAC decides who may silence.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime

import urllib3

from notifier.exits import Exit
from notifier.rules.config.durations import parse_duration
from notifier.silences.book import SilenceError, parse_matchers
from notifier.silences.writing import (
    Edit,
    edit_silences,
    expiring,
    new_silence,
    read_silences_map,
)
from notifier.source.access import KubeAccessError, cluster_access, failure
from notifier.source.client import ApiError, RawClient


def run_add(args: argparse.Namespace) -> int:
    try:
        matchers = parse_matchers(args.match)
        seconds = parse_duration(args.duration)
    except (SilenceError, ValueError) as err:
        return _fail(str(err), Exit.USAGE)
    silence = new_silence(matchers, seconds, comment=args.comment, author=args.author)
    code = _edit(args, lambda silences: [*silences, silence])
    if code == 0:
        print(silence.id)
    return code


def run_expire(args: argparse.Namespace) -> int:
    found: list[bool] = []
    code = _edit(args, expiring(args.id, found))
    if code == 0 and not found[-1]:
        return _fail(f"no silence {args.id!r}")
    return code


def run_list(args: argparse.Namespace) -> int:
    return _guarded(args, _print_list)


def _print_list(args: argparse.Namespace, client: RawClient, where: tuple[str, str]) -> int:
    silences, _ = read_silences_map(client, *where)
    now = time.time()
    shown = [s for s in silences if args.all or s.ends_at > now]
    for silence in sorted(shown, key=lambda s: (not s.active(now), s.ends_at)):
        matchers = ",".join(f"{k}={v}" for k, v in silence.matchers.items())
        state = (
            "active" if silence.active(now) else "ended" if silence.ends_at <= now else "pending"
        )
        ends = datetime.fromtimestamp(silence.ends_at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        print(f"{silence.id}  {state:7}  until {ends}  {matchers}  {silence.created_by}: "
              f"{silence.comment}")  # fmt: skip
    return Exit.OK


def _edit(args: argparse.Namespace, edit: Edit) -> int:
    def apply(_args: argparse.Namespace, client: RawClient, where: tuple[str, str]) -> int:
        edit_silences(client, *where, edit)
        return Exit.OK

    return _guarded(args, apply)


Action = Callable[[argparse.Namespace, RawClient, tuple[str, str]], int]


def _guarded(args: argparse.Namespace, action: Action) -> int:
    """Run ``action`` against the ConfigMap; every failure is one line and its exit code."""
    namespace, _, name = str(args.config_map).partition("/")
    if not namespace or not name:
        message = "give --config-map NAMESPACE/NAME (or set KUBE_NOTIFIER_SILENCES)"
        return _fail(message, Exit.USAGE)
    try:
        client = RawClient(cluster_access(args.kubeconfig, args.context))
    except KubeAccessError as err:
        return _fail(str(err), Exit.CLUSTER)
    try:
        return action(args, client, (namespace, name))
    except (ApiError, urllib3.exceptions.HTTPError, OSError) as err:
        return _fail(failure(client.server, err), Exit.CLUSTER)
    except ValueError as err:
        return _fail(str(err))


def _fail(message: str, code: Exit = Exit.FAILED) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code
