"""The demo's scenario: what it does to the cluster, and what it waits for before the next step.

Every wait is on a condition (the API's status, the service's decisions, the
messages that arrived), never a fixed sleep, each with a deadline that names
what did not happen. The scenario ends once every message it causes has
arrived at the webhook receiver: the stuck rollout, the digests of the failing
Pods in ``demo`` and of the 50 in ``batch``.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.integration.kube import Kube, in_parallel
from tests.support.webhook_server import ReceivedRequest, WebhookServer

SCENARIO_NAMESPACES = frozenset({"demo", "batch"})
BATCH_PODS = 50
STEP_SECONDS = 60.0  # the longest one step may take on a loaded machine
MESSAGES_SECONDS = 120.0  # the digests leave 30 s (group_wait) after their first member
Body = dict[str, Any]  # a webhook message as JSON


class ScenarioError(Exception):
    """Something the scenario waits for did not happen in time; the message says what."""


def say(text: str) -> None:
    print(f"\n\033[1m== {text}\033[0m", flush=True)


def until(what: str, check: Callable[[], bool], timeout: float = STEP_SECONDS) -> None:
    """Return once ``check()`` holds; ScenarioError naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise ScenarioError(f"{what}: not within {timeout:.0f} s")
        time.sleep(0.2)


@dataclass(frozen=True)
class Expected:
    """A message the scenario causes, as the webhook receives it."""

    what: str
    seen: Callable[[list[Body]], bool]


def told(kind: str, namespace: str, name: str, state: str) -> Callable[[list[Body]], bool]:
    """A message (or a digest's member) about the object ``name`` starts, entering ``state``."""

    def seen(bodies: list[Body]) -> bool:
        return any(
            (item.get("kind"), item.get("namespace")) == (kind, namespace)
            and str(item.get("name", "")).startswith(name)
            and state in str(item.get("transition") or body.get("transition", {}).get("text"))
            for body in bodies
            for item in body.get("items") or [body.get("object") or {}]
        )

    return seen


def _batch_digest(bodies: list[Body]) -> bool:
    counts = [
        int(body.get("count") or 0)
        for body in bodies
        if body.get("type") == "digest" and (body.get("group") or {}).get("namespace") == "batch"
    ]
    return sum(counts) >= BATCH_PODS


EXPECTED = (
    Expected(
        "Pod demo/worker-crashy in CrashLoopBackOff",
        told("Pod", "demo", "worker-crashy", "CrashLoopBackOff"),
    ),
    Expected("Pod demo/worker-hungry OOMKilled", told("Pod", "demo", "worker-hungry", "OOMKilled")),
    Expected(  # its rollout's Stuck is the same incident (config.example's pods-cannot-pull)
        "a Pod of Deployment demo/web failing to pull its image",
        told("Pod", "demo", "web-", "ImagePull"),
    ),
    Expected(f"one digest of the {BATCH_PODS} failed Pods in batch", _batch_digest),
)


def missing(requests: list[ReceivedRequest]) -> list[str]:
    """What the scenario causes that has not arrived among ``requests``."""
    bodies = [body for request in requests if isinstance(body := request.json(), dict)]
    return [expected.what for expected in EXPECTED if not expected.seen(bodies)]


class Scenario:
    def __init__(self, kube: Kube, receiver: WebhookServer, port: int) -> None:
        self.kube = kube
        self.receiver = receiver
        self.port = port

    def play(self) -> None:
        self.kube.core.create_namespace({"metadata": {"name": "demo"}})
        self._rollout()
        self._failing_pods()
        self._service_changes()
        self._batch()
        self._messages()

    def _rollout(self) -> None:
        say("a Deployment rolls out (2 replicas)")
        self.kube.apps.create_namespaced_deployment("demo", deployment("web", "nginx:1.27", 2))
        until("Deployment demo/web available with 2 replicas", self._web_available)
        say("...then rolls to an image that cannot be pulled (stuck after 15 s)")
        broken = deployment("web", "registry.invalid/web:broken", 2, "image-pull")
        self.kube.apps.patch_namespaced_deployment("web", "demo", broken)

    def _web_available(self) -> bool:
        status = self.kube.apps.read_namespaced_deployment_status("web", "demo").status
        return bool(status and (status.available_replicas or 0) >= 2)

    def _failing_pods(self) -> None:
        say("a Pod that crash-loops and one that is OOMKilled")
        for name, stage in (("worker-crashy", "crashloop"), ("worker-hungry", "oomkill")):
            labels = {"app": "worker", "kube-notifier.test/stage": stage}
            self.kube.create_pod("demo", name, labels, schedule=True)

    def _service_changes(self) -> None:
        say("a Service created, changed and deleted")
        spec = {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80}]}
        service = {"metadata": {"name": "web"}, "spec": spec}
        self.kube.core.create_namespaced_service("demo", service)
        until("kube-notifier seeing Service demo/web", lambda: self._decided("added"))
        self.kube.core.patch_namespaced_service("web", "demo", {"spec": {"type": "NodePort"}})
        until("kube-notifier seeing its type change", lambda: self._decided("updated"))
        self.kube.core.delete_namespaced_service("web", "demo")
        until("kube-notifier seeing it deleted", lambda: self._decided("deleted"))

    def _decided(self, event: str) -> bool:
        url = f"http://127.0.0.1:{self.port}/debug/decisions?limit=1000"
        with urllib.request.urlopen(url, timeout=5) as resp:
            decisions = json.loads(resp.read())["decisions"]
        return any(d["object"] == "Service/demo/web" and d["event"] == event for d in decisions)

    def _batch(self) -> None:
        say(f"{BATCH_PODS} pods fail at once in namespace 'batch' (one digest, not 50 messages)")
        self.kube.core.create_namespace({"metadata": {"name": "batch"}})
        in_parallel(
            lambda i: self.kube.create_pod(
                "batch", f"job-{i:02d}", {"kube-notifier.test/stage": "fail"}, schedule=True
            ),
            range(BATCH_PODS),
        )

    def _messages(self) -> None:
        say("waiting for the stuck rollout and the digests (group_wait: 30 s)")
        try:
            self.receiver.wait_for(lambda requests: not missing(requests), MESSAGES_SECONDS)
        except AssertionError:
            left = "; ".join(missing(self.receiver.received()))
            raise ScenarioError(f"never arrived: {left}") from None


def deployment(name: str, image: str, replicas: int, stage: str | None = None) -> dict[str, Any]:
    labels = {"app": name}
    pod_labels = {**labels, **({"kube-notifier.test/stage": stage} if stage else {})}
    return {
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "progressDeadlineSeconds": 15,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": pod_labels},
                "spec": {"containers": [{"name": name, "image": image}]},
            },
        },
    }
