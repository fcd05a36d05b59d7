"""The demo's scenario on a real node: a real crash loop and a real OOM kill, told once each.

The kubelet runs the workload image of the real-node tests (tests/controlplane/images.py):
one Pod exits 1 at every start, one is killed by the kernel past its 24Mi memory limit.
Both restart on the kubelet's back-off (10 s, 20 s, 40 s, ...). The scenario prints each
status the kubelet writes, waits until each Pod's message has arrived, then until each
has restarted once more (still the same incident), and fails if either was told twice.
"""

from __future__ import annotations

from typing import Any

from scripts.demo_scenario import MESSAGES_SECONDS, Expected, ScenarioError, say, told, until
from tests.controlplane.incidents import container, pod, pod_spec
from tests.integration.kube import Kube
from tests.support.webhook_server import ReceivedRequest, WebhookServer

NAMESPACE = "demo"
NAMESPACES = frozenset({NAMESPACE})
CRASHER, HOG = "worker-crashy", "worker-hungry"
MEMORY = {"limits": {"memory": "24Mi"}, "requests": {"memory": "24Mi"}}
RESTART_SECONDS = 120.0  # the back-off after the third restart is 40 s; after the fourth 80
EXPECTED = {
    CRASHER: Expected(
        f"Pod {NAMESPACE}/{CRASHER} in CrashLoopBackOff",
        told("Pod", NAMESPACE, CRASHER, "CrashLoopBackOff"),
    ),
    HOG: Expected(f"Pod {NAMESPACE}/{HOG} OOMKilled", told("Pod", NAMESPACE, HOG, "OOMKilled")),
}


def _bodies(requests: list[ReceivedRequest]) -> list[dict[str, Any]]:
    return [body for request in requests if isinstance(body := request.json(), dict)]


def missing(requests: list[ReceivedRequest]) -> list[str]:
    """What the scenario causes that has not arrived among ``requests``."""
    bodies = _bodies(requests)
    return [expected.what for expected in EXPECTED.values() if not expected.seen(bodies)]


def told_twice(requests: list[ReceivedRequest]) -> list[str]:
    """The Pods more than one message (or digest member) was about."""
    bodies = _bodies(requests)
    return [name for name, e in EXPECTED.items() if sum(e.seen([b]) for b in bodies) > 1]


def _state(status: Any) -> str:
    """A container status as one line: its state, its reason, its restarts."""
    for kind in ("waiting", "running", "terminated"):
        if detail := getattr(status.state, kind):
            reason = f" {detail.reason}" if getattr(detail, "reason", None) else ""
            return f"{kind}{reason}, restarts {status.restart_count}"
    return f"unknown, restarts {status.restart_count}"


class NodeScenario:
    def __init__(self, kube: Kube, receiver: WebhookServer, port: int) -> None:
        self.kube = kube
        self.receiver = receiver
        self.port = port
        self.shown: dict[str, str] = {}

    def play(self) -> None:
        self.kube.core.create_namespace({"metadata": {"name": NAMESPACE}})
        say("a Pod that exits 1 at every start, and one the kernel kills past 24Mi")
        self._create(CRASHER, container("crash"))
        self._create(HOG, container("oom", resources=MEMORY))
        say("the kubelet restarts both on its back-off; their messages wait 30 s (group_wait)")
        self._messages()
        restarts = self._observe()
        say("...each restarts once more: the same incident, told no second time")
        until("each Pod restarted again", lambda: self._restarted_since(restarts), RESTART_SECONDS)
        if twice := told_twice(self.receiver.received()):
            raise ScenarioError(f"told more than once: {', '.join(twice)}")

    def _create(self, name: str, main: dict[str, Any]) -> None:
        self.kube.core.create_namespaced_pod(NAMESPACE, pod(name, pod_spec(main)))

    def _messages(self) -> None:
        def arrived() -> bool:
            self._observe()
            return not missing(self.receiver.received())

        try:
            until("the messages", arrived, MESSAGES_SECONDS)
        except ScenarioError:
            left = "; ".join(missing(self.receiver.received()))
            raise ScenarioError(f"never arrived: {left}") from None

    def _restarted_since(self, before: dict[str, int]) -> bool:
        now = self._observe()
        return all(now.get(name, 0) > count for name, count in before.items())

    def _observe(self) -> dict[str, int]:
        """Each Pod's restarts; prints each container state the kubelet wrote since the
        last call."""
        restarts: dict[str, int] = {}
        for found in self.kube.core.list_namespaced_pod(NAMESPACE).items:
            name = str(found.metadata.name)
            restarts[name] = 0
            for status in found.status.container_statuses or []:
                restarts[name] += int(status.restart_count)
                line = _state(status)
                if self.shown.get(name) != line:
                    self.shown[name] = line
                    print(f"  [kubelet] Pod {NAMESPACE}/{name}: {line}", flush=True)
        return restarts
