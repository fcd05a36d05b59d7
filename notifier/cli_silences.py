"""``kube-notifier silence add|list|expire``: mute matching notifications for a while, as amtool.

The silences live in a ConfigMap (``--config-map``, or ``$KUBE_NOTIFIER_SILENCES``,
the chart's ``<fullname>-silences``) that every replica of the service
watches, so a silence mutes everywhere within a second or so and outlives
restarts. Edits are read-modify-write on the ConfigMap's resourceVersion (a
conflicting edit is retried); silences that ended a day ago are pruned. The
command uses your kubeconfig, so your RBAC decides who may silence.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import msgspec
import urllib3

from notifier.exits import Exit
from notifier.rules.durations import parse_duration
from notifier.rules.silences import (
    SILENCES_DECODER,
    SILENCES_KEY,
    Silence,
    SilenceError,
    parse_matchers,
)
from notifier.source.access import KubeAccessError, cluster_access, failure
from notifier.source.client import ApiError, RawClient

NOT_FOUND, CONFLICT = 404, 409
KEEP_ENDED_SECONDS = 24 * 3600
ATTEMPTS = 5

Edit = Callable[[list[Silence]], list[Silence]]


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


def new_silence(matchers: dict[str, str], seconds: float, *, comment: str, author: str) -> Silence:
    """A silence from now for ``seconds`` (matchers already checked by ``parse_matchers``)."""
    now = time.time()
    return Silence(id=uuid.uuid4().hex[:12], matchers=matchers, starts_at=now,
                   ends_at=now + seconds, comment=comment, created_by=author)  # fmt: skip


def run_expire(args: argparse.Namespace) -> int:
    found: list[bool] = []
    code = _edit(args, expiring(args.id, found))
    if code == 0 and not found[-1]:
        return _fail(f"no silence {args.id!r}")
    return code


def expiring(silence_id: str, found: list[bool]) -> Edit:
    """An edit that ends ``silence_id`` now; appends to ``found`` whether it was there."""

    def ended(silences: list[Silence]) -> list[Silence]:
        found.append(any(s.id == silence_id for s in silences))
        now = time.time()
        return [msgspec.structs.replace(s, ends_at=now) if s.id == silence_id else s
                for s in silences]  # fmt: skip

    return ended


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


def edit_silences(client: RawClient, namespace: str, name: str, edit: Edit) -> None:
    """Read-modify-write the silences ConfigMap (the CLI's and the page's one way to write).

    Retried on a conflicting edit; ended silences older than a day are pruned. Raises
    ``ApiError`` (or a connection error), or ``ValueError`` when the map is unreadable
    or kept changing.
    """
    for _ in range(ATTEMPTS):
        silences, version = read_silences_map(client, namespace, name)
        kept = [s for s in edit(silences) if s.ends_at > time.time() - KEEP_ENDED_SECONDS]
        if _write(client, namespace, name, kept, version):
            return
    raise ValueError(f"the ConfigMap kept changing under us ({ATTEMPTS} tries); try again")


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


def read_silences_map(
    client: RawClient, namespace: str, name: str
) -> tuple[list[Silence], str | None]:
    try:
        body = client.get(f"/api/v1/namespaces/{namespace}/configmaps/{name}", {})
    except ApiError as err:
        if err.status == NOT_FOUND:
            return [], None
        raise
    config_map: dict[str, Any] = msgspec.json.decode(body)
    text = (config_map.get("data") or {}).get(SILENCES_KEY, "[]")
    try:
        silences = SILENCES_DECODER.decode(text)
    except msgspec.DecodeError as err:
        raise ValueError(f"{namespace}/{name}: {SILENCES_KEY} is unreadable: {err}") from err
    return silences, str(config_map["metadata"]["resourceVersion"])


def _write(
    client: RawClient, namespace: str, name: str, silences: list[Silence], version: str | None
) -> bool:
    """True once written; False when someone else changed it first (read and try again)."""
    collection = f"/api/v1/namespaces/{namespace}/configmaps"
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if version is not None:
        metadata["resourceVersion"] = version
    body = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": metadata,
        "data": {SILENCES_KEY: msgspec.json.encode(silences).decode()},
    }
    try:
        if version is None:
            client.send("POST", collection, body=body)
        else:
            client.send("PUT", f"{collection}/{name}", body=body)
    except ApiError as err:
        if err.status == CONFLICT:
            return False
        raise
    return True


def _fail(message: str, code: Exit = Exit.FAILED) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code
