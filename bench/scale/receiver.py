"""The webhook receiver: counts what kube-notifier sent, by the ``seq`` label of the Pod told.

Each notification of the bench's rule carries the Pod's labels (the
built-in webhook payload, docs/rules.md); ``seq`` is the number of the
change the stand-in made. A threading HTTP server on 127.0.0.1
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

    def _respond(self, request: ReceivedRequest) -> Reply:
        seq, told = _seq(request.body)
        with self._lock:
            if seq is None:
                self._unparsed += 1
                self._others[told] += 1
            else:
                self._seqs.append(seq)
            self.last_arrival = time.monotonic()
        return OK


def _seq(body: bytes) -> tuple[int | None, str]:
    """The seq label of the object told, if any, and the object's ``namespace/name``."""
    try:
        told: Any = json.loads(body)["object"]
        key = f"{told['namespace']}/{told['name']}"
    except (ValueError, KeyError, TypeError):
        return None, "?"
    try:
        return int(told["labels"]["seq"]), key
    except (ValueError, KeyError, TypeError):
        return None, key
