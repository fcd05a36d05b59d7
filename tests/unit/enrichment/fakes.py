"""A stand-in for the API client's bounded GET: answers by path, records what was asked."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping

from notifier.notifications import ContextRequest
from notifier.source.client import ApiError

Answer = bytes | ApiError | Exception | Callable[[], bytes]


class FakeApi:
    def __init__(self, answers: Mapping[str, Answer]) -> None:
        self.answers = answers
        self.asked: list[tuple[str, dict[str, str], float]] = []
        self.accepted: list[str | None] = []  # each request's Accept header, when not JSON
        self._lock = threading.Lock()

    def get_bounded(
        self,
        path: str,
        query: dict[str, str],
        *,
        timeout: float,
        max_bytes: int,
        accept: str | None = None,
    ) -> bytes:
        with self._lock:
            self.asked.append((path, query, timeout))
            self.accepted.append(accept)
        answer = self.answers.get(path, ApiError(404, "Not Found", f"{path} not found", None))
        if isinstance(answer, Exception):
            raise answer
        data = answer() if callable(answer) else answer
        return data[:max_bytes]

    def paths(self) -> list[str]:
        return [path for path, _, _ in self.asked]


def request(**overrides: object) -> ContextRequest:
    fields: dict[str, object] = {
        "parts": ("logs", "events", "owners"),
        "kind": "Pod",
        "namespace": "shop",
        "name": "web-1",
        "uid": "uid-1",
        "resource_version": "7",
        "logs": (("app", True),),
        "owner": ("ReplicaSet", "web-7d9f"),
    }
    return ContextRequest(**{**fields, **overrides})  # type: ignore[arg-type]


LOG_PATH = "/api/v1/namespaces/shop/pods/web-1/log"
EVENTS_PATH = "/api/v1/namespaces/shop/events"
RS_PATH = "/apis/apps/v1/namespaces/shop/replicasets/web-7d9f"
DEPLOY_PATH = "/apis/apps/v1/namespaces/shop/deployments/web"


def owned_by(kind: str, name: str) -> bytes:
    ref = f'{{"kind": "{kind}", "name": "{name}", "controller": true}}'
    return f'{{"metadata": {{"ownerReferences": [{ref}]}}}}'.encode()
