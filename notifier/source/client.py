"""Raw list and watch requests through the ``kubernetes`` package's REST client.

The package does what it is good at here: kubeconfig and in-cluster auth,
exec credential plugins, TLS and token refresh. We skip its model classes
and read the JSON bodies ourselves, so a watch event costs one msgspec
decode instead of a model deserialization.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import urllib3
from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException

from notifier.source.resources import STATUS_DECODER

CONNECT_TIMEOUT = 10.0
LIST_READ_TIMEOUT = 60.0
CHUNK = 64 * 1024


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


class RawClient:
    """GET with query parameters, returning bytes or a stream of lines."""

    def __init__(self, api_client: ApiClient) -> None:
        self._api = api_client
        self._lock = threading.Lock()
        self._open: set[urllib3.HTTPResponse] = set()

    def sibling(self) -> RawClient:
        """Another client on the same connection pool, tracking its own open streams."""
        return RawClient(self._api)

    def _request(
        self,
        path: str,
        query: dict[str, str],
        read_timeout: float,
        *,
        method: str = "GET",
        body: dict[str, Any] | None = None,
    ) -> urllib3.HTTPResponse:
        # param_serialize applies the configured auth (and refreshes exec/OIDC tokens).
        headers_in = {"Accept": "application/json"}
        if body is not None:
            headers_in["Content-Type"] = "application/json"
        _, url, headers, _, _ = self._api.param_serialize(
            method,
            path,
            query_params=list(query.items()),
            header_params=headers_in,
            auth_settings=["BearerToken"],
        )
        try:
            rest = self._api.rest_client.request(  # type: ignore[no-untyped-call]
                method,
                url,
                headers=headers,
                body=body,
                _request_timeout=(CONNECT_TIMEOUT, read_timeout),
            )
        except ApiException as exc:
            raise _api_error(exc.status, exc.reason, exc.body, exc.headers) from exc
        response: urllib3.HTTPResponse = rest.response
        if not 200 <= response.status < 300:
            data = response.data
            response.release_conn()
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
        response = self._request(path, query, read_timeout)
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
