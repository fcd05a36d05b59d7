"""The webhook receiver both subjects post to: it timestamps arrivals and keeps only what scores.

Built on the tests' ``LoopbackServer`` (a threading HTTP/1.1 server on
127.0.0.1 with keep-alive, stamping each request with ``time.monotonic()``
once its body is read), without its recording: a run receives hundreds of
thousands of requests and only (Pod, seq, time) is kept for churn Pods.
Everything else (failures, rollouts) is counted by rule name.

A churn notification is any JSON body whose ``object.labels`` has
``bench: "1"`` and a ``seq``: kube-notifier's built-in payload has them
(docs/rules.md, "Webhook payload") and the baseline sends the same shape.
In the phase workload (``phases``) the churn Pods have no ``seq`` label:
such a notification naming a churn Pod is kept as a *mention*, as
kubewatch's are.

kubewatch's webhook payload is ``{"eventmeta": {"kind", "name", "namespace",
"reason"}, "text", "time"}``: no labels, so no seq. One with kind ``Pod``,
reason ``Updated`` and a churn Pod's namespace and name is kept as a
*mention* (Pod, time); ``scoring.match_mentions`` pairs mentions with the
trial's changes once its sends are known. Its other requests are counted
as ``kubewatch <kind> <reason>``. kubewatch never closes a response body,
so it never reuses a connection: its requests are answered with
``Connection: close``, or each would hold a receiver thread on an idle
connection until the end of the run.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Mapping
from typing import Any, NamedTuple, Self

from bench.e2e.fleet import CHURN_LABEL, SEQ_LABEL
from bench.e2e.scoring import Arrival, Mention
from tests.support.webhook_server import LoopbackServer, ReceivedRequest, Reply

OK = Reply(200, b"ok")
OK_CLOSE = Reply(200, b"ok", {"Connection": "close"})
KUBEWATCH = "kubewatch"


Told = tuple[int, int | None, float]  # (churn Pod, seq if the payload has one, arrived at)


class Received(NamedTuple):
    arrivals: list[Arrival]  # churn notifications with their seq
    others: Counter[str]  # everything else, by rule (or kubewatch's kind and reason)
    mentions: list[Mention]  # kubewatch's updates of churn Pods, seq unknown


class Receiver:
    def __init__(self, pod_index: Mapping[str, int]) -> None:
        """``pod_index``: ``namespace/name`` of each churn Pod -> its index in the churn."""
        self._pod_index = pod_index
        self._lock = threading.Lock()
        self._arrivals: list[Arrival] = []
        self._others: Counter[str] = Counter()
        self._mentions: list[Mention] = []
        self._server = LoopbackServer(self._respond, record=False)

    @property
    def url(self) -> str:
        return f"{self._server.base_url}/hook"

    def start(self) -> Self:
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop()

    def take(self) -> Received:
        """What came since the last ``take``."""
        with self._lock:
            taken = Received(self._arrivals, self._others, self._mentions)
            self._arrivals, self._others, self._mentions = [], Counter(), []
        return taken

    def peek(self) -> Received:
        with self._lock:
            return Received(list(self._arrivals), Counter(self._others), list(self._mentions))

    def count(self) -> int:
        with self._lock:
            return len(self._arrivals) + sum(self._others.values()) + len(self._mentions)

    def _respond(self, request: ReceivedRequest) -> Reply:
        try:
            body: Any = json.loads(request.body)
        except ValueError:
            body = None
        if isinstance(body, dict) and isinstance(body.get("eventmeta"), dict):
            self._keep_kubewatch(body["eventmeta"], request.arrived_at)
            return OK_CLOSE
        told, rule = self._parse(body, request.arrived_at)
        with self._lock:
            if told is None:
                self._others[rule] += 1
            elif told[1] is None:
                self._mentions.append((told[0], told[2]))
            else:
                self._arrivals.append((told[0], told[1], told[2]))
        return OK

    def _parse(self, body: Any, arrived_at: float) -> tuple[Told | None, str]:
        try:
            obj = body["object"]
            labels = obj.get("labels") or {}
            rule = str(body.get("rule", "?"))
        except (KeyError, TypeError, AttributeError):
            return None, "unparsed"
        pod = self._pod_index.get(f"{obj.get('namespace')}/{obj.get('name')}")
        if labels.get(CHURN_LABEL) != "1" or pod is None:
            return None, rule
        if SEQ_LABEL not in labels:  # the phase workload: scored as a mention
            return (pod, None, arrived_at), rule
        return (pod, int(labels[SEQ_LABEL]), arrived_at), rule

    def _keep_kubewatch(self, meta: dict[str, Any], arrived_at: float) -> None:
        kind, reason = meta.get("kind"), meta.get("reason")
        pod = self._pod_index.get(f"{meta.get('namespace')}/{meta.get('name')}")
        with self._lock:
            if kind == "Pod" and reason == "Updated" and pod is not None:
                self._mentions.append((pod, arrived_at))
            else:
                self._others[f"{KUBEWATCH} {kind} {reason}"] += 1
