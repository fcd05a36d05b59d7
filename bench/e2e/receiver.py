"""The webhook receiver both subjects post to: it timestamps arrivals and keeps only what scores.

Built on the tests' ``LoopbackServer`` (a threading HTTP/1.1 server on
127.0.0.1 with keep-alive, stamping each request with ``time.monotonic()``
once its body is read), without its recording: a run receives hundreds of
thousands of requests and only (Pod, seq, time) is kept for churn Pods.
Everything else (failures, rollouts) is counted by rule name.

A churn notification is any JSON body whose ``object.labels`` has
``bench: "1"`` and a ``seq``: kube-notifier's built-in payload has them
(docs/rules.md, "Webhook payload") and the baseline sends the same shape.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Mapping
from typing import Any, Self

from bench.e2e.fleet import CHURN_LABEL, SEQ_LABEL
from bench.e2e.scoring import Arrival
from tests.support.webhook_server import LoopbackServer, ReceivedRequest, Reply

OK = Reply(200, b"ok")


class Receiver:
    def __init__(self, pod_index: Mapping[str, int]) -> None:
        """``pod_index``: ``namespace/name`` of each churn Pod -> its index in the churn."""
        self._pod_index = pod_index
        self._lock = threading.Lock()
        self._arrivals: list[Arrival] = []
        self._others: Counter[str] = Counter()
        self._server = LoopbackServer(self._respond, record=False)

    @property
    def url(self) -> str:
        return f"{self._server.base_url}/hook"

    def start(self) -> Self:
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop()

    def take(self) -> tuple[list[Arrival], Counter[str]]:
        """Churn arrivals and other notifications (by rule) since the last ``take``."""
        with self._lock:
            arrivals, self._arrivals = self._arrivals, []
            others, self._others = self._others, Counter()
        return arrivals, others

    def peek(self) -> list[Arrival]:
        with self._lock:
            return list(self._arrivals)

    def count(self) -> int:
        with self._lock:
            return len(self._arrivals) + sum(self._others.values())

    def _respond(self, request: ReceivedRequest) -> Reply:
        arrival, rule = self._parse(request)
        with self._lock:
            if arrival is not None:
                self._arrivals.append(arrival)
            else:
                self._others[rule] += 1
        return OK

    def _parse(self, request: ReceivedRequest) -> tuple[Arrival | None, str]:
        try:
            body: Any = json.loads(request.body)
            obj = body["object"]
            labels = obj.get("labels") or {}
            rule = str(body.get("rule", "?"))
        except (ValueError, KeyError, TypeError, AttributeError):
            return None, "unparsed"
        if labels.get(CHURN_LABEL) != "1" or SEQ_LABEL not in labels:
            return None, rule
        pod = self._pod_index.get(f"{obj.get('namespace')}/{obj.get('name')}")
        if pod is None:
            return None, rule
        return (pod, int(labels[SEQ_LABEL]), request.arrived_at), rule
