"""Raw list, watch and write requests through the ``kubernetes`` package's REST client.

We read the JSON bodies ourselves (one msgspec decode per watch event, no
model classes): every request goes through the package's ``ApiClient``
(its TLS, proxies and authentication, see ``credentials``) and comes back
as the unread urllib3 response. Every ``sibling`` shares that client and
its connection pool. A 401 makes ``renewal`` load the credentials again
before the next request, so an expired exec-plugin token is renewed.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import urllib3
from kubernetes.client.exceptions import ApiException

from notifier.source.credentials import ClusterAccess
from notifier.source.listwatch import STATUS_DECODER
from notifier.source.outage import Outage

CONNECT_TIMEOUT = 10.0
LIST_READ_TIMEOUT = 60.0
CHUNK = 64 * 1024
UNAUTHORIZED = 401
SERVER_ERROR = 500
PROBE_TIMEOUT = 2.0  # the outage's ask of /readyz: connect and read, each
PROBE_BYTES = 1024


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

    def __init__(self, access: ClusterAccess, outage: Outage | None = None) -> None:
        self._access = access
        self._lock = threading.Lock()
        self._open: set[urllib3.BaseHTTPResponse] = set()
        # Shared by siblings: one per server, whose prober asks through this first client.
        self.outage = outage or Outage(access.server, probe=self.answers)

    @property
    def server(self) -> str:
        """The API server's URL, for messages."""
        return self._access.server

    def sibling(self) -> RawClient:
        """Another client on the same connection pool, tracking its own open streams."""
        return RawClient(self._access, self.outage)

    def _request(
        self,
        path: str,
        query: dict[str, str],
        read_timeout: float,
        *,
        method: str = "GET",
        body: dict[str, Any] | None = None,
        connect_timeout: float = CONNECT_TIMEOUT,
        accept: str = "application/json",
    ) -> urllib3.BaseHTTPResponse:
        timeouts = (connect_timeout, read_timeout)
        response = self._call(method, path, query, body, timeouts, accept=accept)
        if not 200 <= response.status < 300:
            data = response.data
            response.release_conn()
            if response.status == UNAUTHORIZED:
                self._access.renewal.refused()
            raise _api_error(response.status, response.reason, data, response.headers)
        return response

    def _call(
        self,
        method: str,
        path: str,
        query: dict[str, str],
        body: dict[str, Any] | None,
        timeouts: tuple[float, float],
        *,
        accept: str = "application/json",
    ) -> urllib3.BaseHTTPResponse:
        """The package's REST client: its TLS, proxy and credentials; the body left unread."""
        api = self._access.api
        self._access.renewal.renew_if_due(api)
        headers = {"Accept": accept}
        if body is not None:
            headers["Content-Type"] = "application/json"
        method, url, serialized, content, _ = api.param_serialize(
            method, path, query_params=list(query.items()), header_params=headers, body=body,
            auth_settings=["BearerToken"],
        )  # fmt: skip
        # Several Impersonate-Group headers need a multi-valued dict (the serializer makes one).
        sent = urllib3.HTTPHeaderDict(serialized)
        for name, value in self._access.impersonation:
            sent.add(name, value)
        try:
            answer = api.call_api(method, url, sent, content, _request_timeout=timeouts)
        except ApiException as err:  # how the REST client reports a TLS failure
            raise urllib3.exceptions.SSLError(err.reason) from err
        response: urllib3.BaseHTTPResponse = answer.response
        return response

    def answers(self) -> bool:
        """The API server answers at all: its /readyz, in ``PROBE_TIMEOUT``, with anything but
        a 5xx (a 403 still answers; a server still starting does not)."""
        try:
            self.get_bounded("/readyz", {}, timeout=PROBE_TIMEOUT, max_bytes=PROBE_BYTES)
        except ApiError as err:
            return err.status < SERVER_ERROR
        except Exception:  # refused, reset, timed out, TLS: not there yet
            return False
        return True

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

    def get_bounded(
        self,
        path: str,
        query: dict[str, str],
        *,
        timeout: float,
        max_bytes: int,
        accept: str | None = None,
    ) -> bytes:
        """A GET that waits at most ``timeout`` per step and reads at most ``max_bytes``.

        ``accept``: another ``Accept`` header (``as=PartialObjectMetadata``: metadata only).
        """
        response = self._request(
            path, query, timeout, connect_timeout=timeout, accept=accept or "application/json"
        )
        try:
            data = response.read(max_bytes + 1)
            if len(data) > max_bytes:  # the rest is not wanted: no half-read connection reused
                response.close()
            return data[:max_bytes]
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
