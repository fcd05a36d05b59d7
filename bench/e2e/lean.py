"""The lean notifier: the `kubernetes` client used well, a floor for a Python notifier.

What the tutorial-style baseline (``bench.e2e.baseline``) does, minus what
costs it most: no models. Per kind it lists once (``_preload_content=False``,
the body decoded with msgspec into plain dicts), prints ``ready <objects>``,
then watches from the list's resourceVersion on its own thread, each line of
the stream decoded the same way (bookmarks asked for, so a quiet kind's
resourceVersion stays fresh). The last object per key is kept in a dict to
compare with, and the handler decides what the bench's kube-notifier config
tells and POSTs with urllib3 (``Notifier.post``), on the watch thread.

It has what neither peer has here besides kube-notifier: nothing. No rules
engine, no state file, no outbox, no retry, no metrics, no health endpoint.
Its figures are the cost of the work itself in Python (list, watch, decode,
compare, POST) with the libraries a user would pick: the floor that
kube-notifier's own figures stand on, beside kubewatch's in Go.

    python -m bench.e2e.lean --kubeconfig FILE --webhook URL [--phases]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import msgspec
import urllib3
from kubernetes.watch.watch import iter_resp_lines

from bench.e2e.baseline import Notifier, serve

ListFunction = Callable[..., Any]
Json = dict[str, Any]
GONE = 410
decode = msgspec.json.Decoder().decode


def dig(obj: Json | None, *path: str) -> Any:
    """``obj[path[0]][path[1]]...``, None where a step is missing."""
    for step in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(step)
    return obj


def pod_problems(pod: Json) -> set[str]:
    """Failed, CrashLoopBackOff and OOMKilled, as far as the Pod's status tells."""
    found = {"Failed"} if dig(pod, "status", "phase") == "Failed" else set()
    for container in dig(pod, "status", "containerStatuses") or []:
        if dig(container, "state", "waiting", "reason") == "CrashLoopBackOff":
            found.add("CrashLoopBackOff")
        for state in ("state", "lastState"):
            if dig(container, state, "terminated", "reason") == "OOMKilled":
                found.add("OOMKilled")
    return found


def images(deployment: Json) -> list[str]:
    containers = dig(deployment, "spec", "template", "spec", "containers") or []
    return [str(c.get("image")) for c in containers]


def label(obj: Json, name: str) -> str | None:
    value = (dig(obj, "metadata", "labels") or {}).get(name)
    return None if value is None else str(value)


def what_to_tell(kind: str, old: Json | None, new: Json, *, phases: bool) -> list[tuple[str, str]]:
    """(rule, summary) for an update, as ``baseline.what_to_tell`` decides it from models."""
    if old is None:
        return []
    if kind == "Pod" and phases:
        was, now = dig(old, "status", "phase"), dig(new, "status", "phase")
        return (
            [("bench-phase", f"phase {was} -> {now}")]
            if label(new, "bench") == "1" and was != now
            else []
        )
    if kind == "Pod":
        news = []
        if label(new, "bench") == "1" and label(new, "seq") != label(old, "seq"):
            news.append(("bench-seq", f"seq {label(old, 'seq')} -> {label(new, 'seq')}"))
        if reached := pod_problems(new) - pod_problems(old):
            news.append(("pod-failures", ", ".join(sorted(reached))))
        return news
    if kind == "Deployment" and images(old) != images(new):
        return [("image-changes", f"images now {', '.join(images(new))}")]
    return []


class LeanNotifier(Notifier):
    def initial_list(self, kind: str, list_function: ListFunction) -> str:
        """Cache every object of ``kind`` as decoded; the list's resourceVersion."""
        body = decode(list_function(_preload_content=False).data)
        self.replace(kind, body.get("items") or [])
        return str(dig(body, "metadata", "resourceVersion"))

    def key_of(self, kind: str, obj: Json) -> tuple[str, str, str]:
        meta = obj.get("metadata") or {}
        return kind, str(meta.get("namespace") or ""), str(meta.get("name"))

    def news(self, kind: str, old: Json | None, new: Json) -> list[tuple[str, str]]:
        return what_to_tell(kind, old, new, phases=self.phases)

    def about(self, kind: str, obj: Json) -> Json:
        meta = obj.get("metadata") or {}
        return {
            "kind": kind,
            "namespace": meta.get("namespace"),
            "name": meta.get("name"),
            "uid": meta.get("uid"),
            "resource_version": meta.get("resourceVersion"),
            "labels": meta.get("labels") or {},
        }


def watch_once(notifier: LeanNotifier, kind: str, list_function: ListFunction, version: str) -> str:
    """One watch request from ``version`` until the server ends it; the version to go on from
    (a fresh list's after a 410)."""
    response = list_function(
        watch=True,
        resource_version=version,
        allow_watch_bookmarks=True,
        timeout_seconds=300,
        _preload_content=False,
    )
    try:
        for line in iter_resp_lines(response):  # type: ignore[no-untyped-call]
            event = decode(line)
            obj = event.get("object") or {}
            if event.get("type") == "ERROR":
                if obj.get("code") == GONE:
                    print(f"{kind}: 410 Gone, relisting", file=sys.stderr, flush=True)
                    return notifier.initial_list(kind, list_function)
                raise RuntimeError(f"{kind}: watch error {obj}")
            version = str(dig(obj, "metadata", "resourceVersion") or version)
            if event.get("type") != "BOOKMARK":
                notifier.handle(kind, str(event.get("type")), obj)
    finally:
        response.release_conn()
    return version


def watch_forever(
    notifier: LeanNotifier, kind: str, list_function: ListFunction, version: str
) -> None:
    while True:
        try:
            version = watch_once(notifier, kind, list_function, version)
        except (urllib3.exceptions.HTTPError, msgspec.DecodeError) as err:
            print(f"{kind}: watch broke ({err}), re-watching", file=sys.stderr, flush=True)
            time.sleep(1)


def main(argv: list[str] | None = None) -> int:
    return serve(argv, __doc__, LeanNotifier, watch_forever)


if __name__ == "__main__":
    sys.exit(main())
