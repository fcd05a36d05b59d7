"""Silences in ``rules test``: read from a file or the cluster, applied as the service applies them.

``--silences FILE`` takes the list as the ConfigMap holds it (its
``silences.json``) or the ConfigMap itself (``kubectl get cm NAME -o yaml``);
``--silences-config-map NS/NAME`` reads it with your kubeconfig. A silence in
force that mutes a matched rule is named with what it matches, until when,
who made it and why, as /debug/decisions names it.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

import msgspec
import urllib3
import yaml

from notifier.rules.decisions import Decision
from notifier.rules.matching.probing import EvalContext, Probe
from notifier.rules.quieting import silence
from notifier.rules.ruleset import Evaluation
from notifier.silences.book import SILENCES_KEY, Silence, SilenceBook
from notifier.transitions.model import Transition


def read_silences(args: argparse.Namespace) -> list[Silence] | None:
    """The silences asked for, None if none were; ValueError says what is wrong."""
    if args.silences is not None:
        return _from_file(args.silences)
    if args.silences_config_map is None:
        return None
    from notifier.silences.writing import read_silences_map  # noqa: PLC0415 - the API client
    from notifier.source.access import KubeAccessError, cluster_access, failure  # noqa: PLC0415
    from notifier.source.client import ApiError, RawClient  # noqa: PLC0415

    namespace, _, name = str(args.silences_config_map).partition("/")
    if not namespace or not name:
        raise ValueError("give --silences-config-map NAMESPACE/NAME")
    try:
        client = RawClient(cluster_access(args.kubeconfig, args.context))
    except KubeAccessError as err:
        raise ValueError(f"silences from {namespace}/{name}: {err}") from err
    try:
        return read_silences_map(client, namespace, name)[0]
    except (ApiError, urllib3.exceptions.HTTPError, OSError) as err:
        message = failure(client.server, err)
        raise ValueError(f"silences from {namespace}/{name}: {message}") from None


def _from_file(path: Path) -> list[Silence]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if isinstance(data, dict) and data.get("kind") == "ConfigMap":
        data = yaml.safe_load((data.get("data") or {}).get(SILENCES_KEY, "[]"))
    try:
        return msgspec.convert(data, list[Silence])
    except msgspec.ValidationError as err:
        raise ValueError(f"{path}: not a list of silences: {err}") from err


def apply_silences(
    silences: Sequence[Silence],
    transition: Transition,
    context: EvalContext,
    evaluation: Evaluation,
    out: TextIO,
) -> Evaluation:
    """``evaluation`` less the routes a silence in force mutes, each said in ``out``."""
    book = SilenceBook()
    for problem in book.replace(silences):
        print(f"Silence left out: {problem}", file=out)
    decision = Decision.of(evaluation)
    quieted = silence(book, Probe(transition, context), evaluation, decision)
    by_id = {s.id: s for s in silences}
    for rule, reason in decision.suppressed:
        found = by_id.get(reason.removeprefix("silenced by "))
        if found is not None:
            print(f"Silenced: {rule} by {describe(found, context.now)}", file=out)
    return quieted


def describe(silence: Silence, now: float) -> str:
    matchers = ",".join(f"{k}={v}" for k, v in silence.matchers.items())
    ends = datetime.fromtimestamp(silence.ends_at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    left = max(0, int(silence.ends_at - now)) // 60
    author = f"{silence.created_by}: " if silence.created_by else ""
    told = f"{author}{silence.comment}"
    return f"silence {silence.id} ({matchers}; until {ends}, {left} min left; {told})"
