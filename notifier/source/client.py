"""Raw list, watch and write requests to the API server, with our own small HTTP layer.

We read the JSON bodies ourselves (one msgspec decode per watch event, no
model classes) and authenticate as ``credentials`` found out: a TLS context
that trusts the cluster's CA and may hold a client certificate, plus an
``Authorization`` header from ``auth``. Requests go through one urllib3
pool shared by every ``sibling``; a 401 makes ``auth`` forget cached
credentials, so an expired exec-plugin token is renewed on the next try.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlencode

import urllib3

from notifier.source.credentials import ClusterAccess
from notifier.source.resources import STATUS_DECODER

CONNECT_TIMEOUT = 10.0
LIST_READ_TIMEOUT = 60.0
CHUNK = 64 * 1024
POOL_SIZE = 16  # a watch holds a connection for minutes: one per informer, lease, reloader
UNAUTHORIZED = 401


class ApiError(Exception):
    """A non-2xx answer: status code, reason and (for 429) Retry-After seconds."""

    def __init__(self, status: int, reason: str, message: str, retry_after: float | None) -> None:
        super().__init__(f"HTTP {status} {reason}: {message}")
        self.status = status
        self.reason = reason
        self.message = message
        self.retry_after = retry_after


def _retry_after(headers: Any) -> float | None:
    value = headers.get("Retry-After") if headers is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _api_error(status: Any, reason: Any, body: Any, headers: Any) -> ApiError:
    message = ""
    if body:
        with contextlib.suppress(Exception):
            message = STATUS_DECODER.decode(body).message
    return ApiError(int(status or 0), str(reason or ""), message, _retry_after(headers))


def _pool_for(access: ClusterAccess) -> urllib3.PoolManager:
    return urllib3.PoolManager(
        maxsize=POOL_SIZE,
        block=False,
        retries=False,
        ssl_context=access.tls,
        server_hostname=access.server_hostname,
    )


class RawClient:
    """GET with query parameters, returning bytes or a stream of lines."""

    def __init__(self, access: ClusterAccess, pool: urllib3.PoolManager | None = None) -> None:
        self._access = access
        self._pool = pool or _pool_for(access)
        self._lock = threading.Lock()
        self._open: set[urllib3.BaseHTTPResponse] = set()

    def sibling(self) -> RawClient:
        """Another client on the same connection pool, tracking its own open streams."""
        return RawClient(self._access, self._pool)

    def _request(
        self,
        path: str,
        query: dict[str, str],
        read_timeout: float,
        *,
        method: str = "GET",
        body: dict[str, Any] | None = None,
        stream: bool = False,
    ) -> urllib3.BaseHTTPResponse:
        headers = {"Accept": "application/json", **self._access.auth.headers()}
        encoded = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            encoded = json.dumps(body).encode()
        url = self._access.server + path + (f"?{urlencode(query)}" if query else "")
        response = self._pool.request(
            method,
            url,
            body=encoded,
            headers=headers,
            timeout=urllib3.Timeout(connect=CONNECT_TIMEOUT, read=read_timeout),
            preload_content=not stream,
            redirect=False,
        )
        if not 200 <= response.status < 300:
            data = response.data
            response.release_conn()
            if response.status == UNAUTHORIZED:
                self._access.auth.invalidate()
            raise _api_error(response.status, response.reason, data, response.headers)
        return response

    def get(self, path: str, query: dict[str, str]) -> bytes:
        return self.send("GET", path, query=query)

    def send(
        self,
        method: str,
        path: str,
        *,
        query: dict[str, str] | None = None,
        body: dict[str, Any] | None = None,
    ) -> bytes:
        """One request with a JSON body (or none); the response body, or ApiError."""
        response = self._request(path, query or {}, LIST_READ_TIMEOUT, method=method, body=body)
        try:
            return response.data
        finally:
            response.release_conn()

    def stream_lines(
        self,
        path: str,
        query: dict[str, str],
        read_timeout: float,
        on_open: Callable[[], None] = lambda: None,
    ) -> Iterator[bytes]:
        """Yield one watch event (one JSON line) at a time, as soon as it arrives.

        ``read_timeout`` is the inactivity watchdog: when no byte (no event,
        no bookmark) arrives for that long, urllib3 raises ReadTimeoutError.
        """
        response = self._request(path, query, read_timeout, stream=True)
        on_open()
        with self._lock:
            self._open.add(response)
        try:
            yield from _split_lines(response.stream(CHUNK))
        finally:
            with self._lock:
                self._open.discard(response)
            response.release_conn()

    def close_streams(self) -> None:
        """Unblock every watch that is waiting for bytes (used at shutdown)."""
        with self._lock:
            open_now = list(self._open)
        for response in open_now:
            with contextlib.suppress(Exception):
                response.shutdown()


def _split_lines(chunks: Iterator[bytes]) -> Iterator[bytes]:
    pending = b""
    for chunk in chunks:
        pending += chunk
        if b"\n" not in chunk:
            continue
        *lines, pending = pending.split(b"\n")
        for line in lines:
            if line:
                yield line
    if pending.strip():
        yield pending
