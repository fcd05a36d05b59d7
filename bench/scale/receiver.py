"""The webhook receiver: counts what kube-notifier sent, by the ``seq`` label of the Pod told.

Each notification of the bench's rule carries the Pod's labels (the
built-in webhook payload, docs/rules.md); ``seq`` is the number of the
change the stand-in made. kubewatch's posts (``{"eventmeta": {kind, name,
namespace, reason}}``: no labels) are counted as ``kubewatch <kind> <reason>``.
A threading HTTP server on 127.0.0.1
(``tests.support.webhook_server.LoopbackServer``, without its recording).
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from typing import Any, Self

from tests.support.webhook_server import LoopbackServer, ReceivedRequest, Reply

OK = Reply(200, b"ok")
OK_CLOSE = Reply(200, b"ok", {"Connection": "close"})  # kubewatch never reuses a connection
KUBEWATCH = "kubewatch"
KUBEWATCH_POD_UPDATE = "kubewatch Pod Updated"


class SeqReceiver:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seqs: list[int] = []
        self._unparsed = 0
        self._others: Counter[str] = Counter()  # bodies without a seq, by the object told
        self.last_arrival = 0.0
        self._server = LoopbackServer(self._respond, record=False)

    @property
    def url(self) -> str:
        return f"{self._server.base_url}/hook"

    def start(self) -> Self:
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop()

    def take(self) -> tuple[list[int], int]:
        """The seqs received since the last ``take``, and how many bodies had none."""
        with self._lock:
            taken = self._seqs, self._unparsed
            self._seqs, self._unparsed = [], 0
        return taken

    def count(self) -> int:
        with self._lock:
            return len(self._seqs) + self._unparsed

    def others(self) -> Counter[str]:
        """How many notifications without a seq told each object (``namespace/name``)."""
        with self._lock:
            return self._others.copy()

    def seqs(self) -> set[int]:
        with self._lock:
            return set(self._seqs)

    def kubewatch_updates(self) -> int:
        """kubewatch's posts of Pod updates so far (it names the Pod, not the change)."""
        with self._lock:
            return self._others[KUBEWATCH_POD_UPDATE]

    def _respond(self, request: ReceivedRequest) -> Reply:
        seq, told = _seq(request.body)
        with self._lock:
            if seq is None:
                self._unparsed += 1
                self._others[told] += 1
            else:
                self._seqs.append(seq)
            self.last_arrival = time.monotonic()
        return OK_CLOSE if told.startswith(KUBEWATCH) else OK


def _seq(body: bytes) -> tuple[int | None, str]:
    """The seq label of the object told, if any, and the object's ``namespace/name``."""
    try:
        parsed: Any = json.loads(body)
        if isinstance(parsed, dict) and isinstance(parsed.get("eventmeta"), dict):
            meta = parsed["eventmeta"]
            return None, f"{KUBEWATCH} {meta.get('kind')} {meta.get('reason')}"
        told: Any = parsed["object"]
        key = f"{told['namespace']}/{told['name']}"
    except (ValueError, KeyError, TypeError):
        return None, "?"
    try:
        return int(told["labels"]["seq"]), key
    except (ValueError, KeyError, TypeError):
        return None, key
