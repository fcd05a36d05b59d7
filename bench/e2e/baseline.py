"""The baseline: a notifier written the way the tutorials write one.

Per kind, ``kubernetes.watch.Watch().stream(CoreV1Api.list_pod_for_all_namespaces,
...)`` (and the Deployment and Service equivalents) on its own thread, every
event deserialized into the client's models (``V1Pod``, ...), the last
object per key kept in a dict to compare against, and one handler that
decides and POSTs to the webhook with urllib3, on the watch thread, before
reading the next event. To stay quiet about the world as it was at start
(as kube-notifier is), it first lists each kind (unpaged, into models),
prints ``ready <objects>`` and watches from the list's resourceVersion. A
410 Gone relists (what changed meanwhile is not told); other stream errors
re-watch from the last resourceVersion seen.

It tells what the bench's kube-notifier config tells (bench/e2e/subjects.py):
a churn Pod's ``seq`` label changing (rule ``bench-seq``), a Pod becoming
Failed, CrashLoopBackOff or OOMKilled (``pod-failures``), a Deployment's
images changing (``image-changes``); with ``--phases``, the phase
workload's config instead: a churn Pod's phase changing (``bench-phase``)
and Deployment images; with the same payload shape for the
fields the receiver reads (``rule``, ``object.namespace/name/labels``).

    python -m bench.e2e.baseline --kubeconfig FILE --webhook URL
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import urllib3
from kubernetes import client, config, watch
from kubernetes.client.exceptions import ApiException

ListFunction = Callable[..., Any]
Key = tuple[str, str, str]  # kind, namespace, name


def pod_problems(pod: Any) -> set[str]:
    """Failed, CrashLoopBackOff and OOMKilled, as far as the Pod's status tells."""
    status = pod.status
    found = {"Failed"} if status is not None and status.phase == "Failed" else set()
    for container in (status.container_statuses if status is not None else None) or []:
        waiting = container.state.waiting if container.state else None
        if waiting is not None and waiting.reason == "CrashLoopBackOff":
            found.add("CrashLoopBackOff")
        for state in (container.state, container.last_state):
            terminated = state.terminated if state else None
            if terminated is not None and terminated.reason == "OOMKilled":
                found.add("OOMKilled")
    return found


def deployment_images(deployment: Any) -> list[str]:
    return [c.image for c in deployment.spec.template.spec.containers]


def label(obj: Any, name: str) -> str | None:
    labels = obj.metadata.labels or {}
    value = labels.get(name)
    return None if value is None else str(value)


def what_to_tell(kind: str, old: Any, new: Any, *, phases: bool = False) -> list[tuple[str, str]]:
    """(rule, summary) for an update from ``old`` to ``new``; adds and deletes tell nothing.
    ``phases``: the phase workload's rules (a churn Pod's phase changing, rule
    ``bench-phase``) instead of ``bench-seq`` and ``pod-failures``."""
    if old is None or new is None:
        return []
    if kind == "Pod":
        return _phase_news(old, new) if phases else _pod_news(old, new)
    if kind == "Deployment" and deployment_images(old) != deployment_images(new):
        return [("image-changes", f"images now {', '.join(deployment_images(new))}")]
    return []


def _pod_news(old: Any, new: Any) -> list[tuple[str, str]]:
    news = []
    seq = label(new, "seq")
    if label(new, "bench") == "1" and seq != label(old, "seq"):
        news.append(("bench-seq", f"seq {label(old, 'seq')} -> {seq}"))
    reached = pod_problems(new) - pod_problems(old)
    if reached:
        news.append(("pod-failures", ", ".join(sorted(reached))))
    return news


def _phase_news(old: Any, new: Any) -> list[tuple[str, str]]:
    was, now = old.status.phase if old.status else None, new.status.phase if new.status else None
    if label(new, "bench") != "1" or was == now:
        return []
    return [("bench-phase", f"phase {was} -> {now}")]


class Notifier:
    def __init__(self, webhook: str, *, phases: bool = False) -> None:
        self.phases = phases
        self.webhook = webhook
        self.http = urllib3.PoolManager(maxsize=4)
        self.cache: dict[Key, Any] = {}
        self.lock = threading.Lock()
        self.failed_posts = 0

    def initial_list(self, kind: str, list_function: ListFunction) -> str:
        """Cache every object of ``kind``; the list's resourceVersion, to watch from."""
        result = list_function()
        self.replace(kind, result.items)
        return str(result.metadata.resource_version)

    def replace(self, kind: str, items: list[Any]) -> None:
        with self.lock:
            for key in [k for k in self.cache if k[0] == kind]:
                del self.cache[key]
            for obj in items:
                self.cache[self.key_of(kind, obj)] = obj

    def handle(self, kind: str, event_type: str, obj: Any) -> None:
        key = self.key_of(kind, obj)
        with self.lock:
            old = self.cache.get(key)
            if event_type == "DELETED":
                self.cache.pop(key, None)
            else:
                self.cache[key] = obj
        if event_type == "MODIFIED":
            for rule, summary in self.news(kind, old, obj):
                self.post(rule, self.about(kind, obj), summary)

    # What the lean notifier reads from dicts instead of models:

    def key_of(self, kind: str, obj: Any) -> Key:
        return kind, obj.metadata.namespace or "", obj.metadata.name

    def news(self, kind: str, old: Any, new: Any) -> list[tuple[str, str]]:
        return what_to_tell(kind, old, new, phases=self.phases)

    def about(self, kind: str, obj: Any) -> dict[str, Any]:
        """The object as the payload names it (kind, namespace, name, uid, resource_version,
        labels)."""
        meta = obj.metadata
        return {
            "kind": kind,
            "namespace": meta.namespace,
            "name": meta.name,
            "uid": meta.uid,
            "resource_version": meta.resource_version,
            "labels": meta.labels or {},
        }

    def post(self, rule: str, about: dict[str, Any], summary: str) -> None:
        """POST one notification about the object ``about`` describes (kind, namespace, name,
        uid, resource_version, labels), in the shape the bench's receiver reads."""
        payload = {
            "schema": "baseline/v1",
            "type": "transition",
            "rule": rule,
            "summary": f"{about['kind']} {about['namespace']}/{about['name']}: {summary}",
            "object": about,
            "event": "updated",
        }
        try:
            response = self.http.request(
                "POST",
                self.webhook,
                body=json.dumps(payload).encode(),
                headers={"Content-Type": "application/json"},
            )
            if response.status >= 300:
                self.failed_posts += 1
        except urllib3.exceptions.HTTPError as err:
            self.failed_posts += 1
            print(f"post failed: {err}", file=sys.stderr, flush=True)


def events(list_function: ListFunction, resource_version: str) -> Iterator[dict[str, Any]]:
    watcher = watch.Watch()  # type: ignore[no-untyped-call]
    stream: Iterator[dict[str, Any]] = watcher.stream(  # type: ignore[no-untyped-call]
        list_function, resource_version=resource_version, timeout_seconds=300
    )
    return stream


def watch_forever(notifier: Notifier, kind: str, list_function: ListFunction, version: str) -> None:
    while True:
        try:
            for event in events(list_function, version):
                obj = event["object"]
                version = obj.metadata.resource_version
                notifier.handle(kind, event["type"], obj)
        except ApiException as err:
            if err.status != 410:
                raise
            print(f"{kind}: 410 Gone, relisting", file=sys.stderr, flush=True)
            version = notifier.initial_list(kind, list_function)
        except urllib3.exceptions.HTTPError as err:
            print(f"{kind}: watch broke ({err}), re-watching", file=sys.stderr, flush=True)
            time.sleep(1)


N = TypeVar("N", bound="Notifier")
Follow = Callable[[N, str, ListFunction, str], None]


def serve(
    argv: list[str] | None, about: str | None, notifier_type: type[N], follow: Follow[N]
) -> int:
    """The flags, the kubeconfig, the three kinds listed (then ``ready``), and ``follow``
    watching each on its own thread until stdin closes: the baseline's ``main``, and the
    lean notifier's with its own notifier and watch loop."""
    parser = argparse.ArgumentParser(description=(about or "").split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--kubeconfig", required=True)
    parser.add_argument("--webhook", required=True)
    parser.add_argument("--phases", action="store_true", help="the phase workload's rules")
    args = parser.parse_args(argv)
    config.load_kube_config(config_file=args.kubeconfig)  # type: ignore[no-untyped-call]
    core, apps = client.CoreV1Api(), client.AppsV1Api()
    kinds: list[tuple[str, ListFunction]] = [
        ("Pod", core.list_pod_for_all_namespaces),
        ("Deployment", apps.list_deployment_for_all_namespaces),
        ("Service", core.list_service_for_all_namespaces),
    ]
    notifier = notifier_type(args.webhook, phases=args.phases)
    versions = {kind: notifier.initial_list(kind, list_function) for kind, list_function in kinds}
    print(f"ready {len(notifier.cache)}", flush=True)
    for kind, list_function in kinds:
        threading.Thread(
            target=follow, args=(notifier, kind, list_function, versions[kind]), daemon=True
        ).start()
    sys.stdin.read()  # the bench closes stdin (or sends SIGTERM) to stop it
    return 0


def main(argv: list[str] | None = None) -> int:
    return serve(argv, __doc__, Notifier, watch_forever)


if __name__ == "__main__":
    sys.exit(main())
