"""The silences ConfigMap, written: read-modify-write on its resourceVersion.

The one way a silence is added or ended, from the CLI (``kube-notifier
silence``, ``cli/silences.py``) and from the page (``silence_writes``)
alike; the service reads the map back through its watch
(``silences/watching.py``). A conflicting edit is read again and retried;
silences that ended a day ago are pruned on every write.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

import msgspec
import urllib3

from notifier.silences.book import (
    SILENCES_DECODER,
    SILENCES_KEY,
    NewSilence,
    Silence,
    SilenceWriteError,
    SilenceWrites,
)
from notifier.source.access import failure
from notifier.source.client import ApiError, RawClient

NOT_FOUND, CONFLICT = 404, 409
KEEP_ENDED_SECONDS = 24 * 3600
ATTEMPTS = 5

Edit = Callable[[list[Silence]], list[Silence]]


def new_silence(matchers: dict[str, str], seconds: float, *, comment: str, author: str) -> Silence:
    """A silence from now for ``seconds`` (matchers already checked by ``parse_matchers``)."""
    now = time.time()
    return Silence(id=uuid.uuid4().hex[:12], matchers=matchers, starts_at=now,
                   ends_at=now + seconds, comment=comment, created_by=author)  # fmt: skip


def expiring(silence_id: str, found: list[bool]) -> Edit:
    """An edit that ends ``silence_id`` now; appends to ``found`` whether it was there."""

    def ended(silences: list[Silence]) -> list[Silence]:
        found.append(any(s.id == silence_id for s in silences))
        now = time.time()
        return [msgspec.structs.replace(s, ends_at=now) if s.id == silence_id else s
                for s in silences]  # fmt: skip

    return ended


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


def silence_writes(client: RawClient, namespace: str, name: str) -> SilenceWrites:
    """The page's silence edits (``--page-writes``): add and expire, through ``edit_silences``."""

    def edit(change: Edit) -> None:
        try:
            edit_silences(client, namespace, name, change)
        except (ApiError, urllib3.exceptions.HTTPError, OSError) as err:
            raise SilenceWriteError(failure(client.server, err)) from err
        except ValueError as err:
            raise SilenceWriteError(str(err)) from err

    def add(made: NewSilence) -> str:
        silence = new_silence(made.matchers, made.seconds, comment=made.comment,
                              author=made.author)  # fmt: skip
        edit(lambda silences: [*silences, silence])
        return silence.id

    def expire(silence_id: str) -> None:
        found: list[bool] = []
        edit(expiring(silence_id, found))
        if not found[-1]:
            raise SilenceWriteError(f"no silence {silence_id!r}")

    return SilenceWrites(add=add, expire=expire)
