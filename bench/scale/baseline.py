"""The baseline a user would pick: the ``kubernetes`` client's list and watch into dicts.

Per kind (Pods, Deployments, Services, all namespaces): a paged list
(``limit=500`` and ``_continue``, ``_preload_content=False``, each page
through ``json.loads``) into a dict per kind, then ``ready <objects>`` on
stdout, then ``watch.Watch().stream(..., deserialize=False)`` from the
list's resourceVersion on a thread per kind, each event's object kept in
the dict (as ``bench.source_bench``'s "dicts" path does). Nothing is told
anywhere: it measures what holding the cache costs, not notifying.

    python -m bench.scale.baseline --kubeconfig FILE
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Callable
from typing import Any

from kubernetes import client, config, watch

ListFunction = Callable[..., Any]
Cache = dict[str, dict[str, Any]]
WATCH_SECONDS = 300


def list_functions() -> dict[str, ListFunction]:
    core, apps = client.CoreV1Api(), client.AppsV1Api()
    return {
        "pods": core.list_pod_for_all_namespaces,
        "deployments": apps.list_deployment_for_all_namespaces,
        "services": core.list_service_for_all_namespaces,
    }


def key(obj: dict[str, Any]) -> str:
    return f"{obj['metadata'].get('namespace')}/{obj['metadata']['name']}"


def list_all(function: ListFunction) -> tuple[Cache, str]:
    cache: Cache = {}
    token = None
    while True:
        kwargs: dict[str, Any] = {"limit": 500, "_preload_content": False}
        if token:
            kwargs["_continue"] = token
        body = json.loads(function(**kwargs).data)
        cache.update((key(item), item) for item in body["items"])
        token = body["metadata"].get("continue")
        if not token:
            return cache, str(body["metadata"]["resourceVersion"])


def watch_forever(function: ListFunction, cache: Cache, version: str) -> None:
    watcher = watch.Watch()  # type: ignore[no-untyped-call]
    while True:
        try:
            for event in watcher.stream(  # type: ignore[no-untyped-call]
                function,
                resource_version=version,
                allow_watch_bookmarks=True,
                timeout_seconds=WATCH_SECONDS,
                deserialize=False,
            ):
                obj = event["object"]
                version = obj["metadata"]["resourceVersion"]
                if event["type"] == "DELETED":
                    cache.pop(key(obj), None)
                elif event["type"] != "BOOKMARK":
                    cache[key(obj)] = obj
        except Exception:  # a 410 (a KeyError in this mode: no raw_object), a cut stream
            fresh, version = list_all(function)
            cache.clear()
            cache.update(fresh)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kubeconfig", required=True)
    args = parser.parse_args()
    config.load_kube_config(config_file=args.kubeconfig)  # type: ignore[no-untyped-call]
    listed = {plural: list_all(function) for plural, function in list_functions().items()}
    print(f"ready {sum(len(cache) for cache, _ in listed.values())}", flush=True)
    threads = [
        threading.Thread(target=watch_forever, args=(function, *listed[plural]), daemon=True)
        for plural, function in list_functions().items()
    ]
    for thread in threads:
        thread.start()
    sys.stdin.read()  # until the bench closes our stdin (or stops us)


if __name__ == "__main__":
    main()
