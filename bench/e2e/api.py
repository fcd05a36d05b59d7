"""A lean HTTPS client for kube-apiserver writes: what the churn and the setup use.

The kubernetes package would deserialize every response into a model,
costing more CPU per write than the API server spends on it; on a 2-core
machine that would make the bench measure itself. ``ApiConnection`` sends
raw JSON over one keep-alive HTTP/1.1 connection with the admin client
certificate and reads (and drops) the response. One connection per thread.

``Endpoint`` is plain data, so it crosses into the churn's worker processes.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import ssl
from dataclasses import dataclass
from typing import Any

from tests.controlplane.cluster import ControlPlane

MERGE_PATCH = "application/merge-patch+json"
JSON = "application/json"
USER_AGENT = "kube-notifier-bench/e2e"
METADATA_LIST = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"


@dataclass(frozen=True)
class Endpoint:
    host: str
    port: int
    ca_cert: str
    client_cert: str
    client_key: str

    @classmethod
    def of(cls, plane: ControlPlane) -> Endpoint:
        pki = plane.pki
        return cls(
            "127.0.0.1",
            plane.apiserver_port,
            str(pki.ca_cert),
            str(pki.admin_cert),
            str(pki.admin_key),
        )

    def ssl_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=self.ca_cert)
        context.load_cert_chain(self.client_cert, self.client_key)
        return context


class ApiError(RuntimeError):
    def __init__(self, method: str, path: str, status: int, body: bytes) -> None:
        super().__init__(f"{method} {path}: {status} {body[:300]!r}")
        self.status = status


class ApiConnection:
    """Requests on one keep-alive connection, reconnecting once if the server closed it."""

    def __init__(self, endpoint: Endpoint, timeout: float | None = 30.0) -> None:
        self._endpoint = endpoint
        self._context = endpoint.ssl_context()
        self._timeout = timeout
        self._conn: http.client.HTTPSConnection | None = None

    def request(
        self, method: str, path: str, body: Any = None, content_type: str = JSON, accept: str = JSON
    ) -> tuple[int, bytes]:
        data = None if body is None else json.dumps(body, separators=(",", ":")).encode()
        headers = {"Content-Type": content_type, "Accept": accept, "User-Agent": USER_AGENT}
        try:
            return self._send(method, path, data, headers)
        except (http.client.HTTPException, ConnectionError):
            self.close()  # a keep-alive connection the server dropped: one fresh try
            return self._send(method, path, data, headers)

    def call(
        self, method: str, path: str, body: Any = None, content_type: str = JSON, accept: str = JSON
    ) -> bytes:
        """``request``, raising ``ApiError`` unless the answer is 2xx."""
        status, payload = self.request(method, path, body, content_type, accept)
        if not 200 <= status < 300:
            raise ApiError(method, path, status, payload)
        return payload

    def stream(self, path: str) -> http.client.HTTPResponse:
        """GET ``path`` and hand over the open response (a watch: read it line by line)."""
        conn = self._connection()
        conn.request("GET", path, headers={"Accept": JSON, "User-Agent": USER_AGENT})
        response = conn.getresponse()
        if response.status != 200:
            raise ApiError("GET", path, response.status, response.read())
        return response

    def connect(self) -> None:
        """Open the connection now (TLS handshake included) rather than on the first request."""
        self._connection().connect()

    def abort(self) -> None:
        """Close at once, waking a thread blocked reading a stream (close alone may not)."""
        if self._conn is not None and self._conn.sock is not None:
            with contextlib.suppress(OSError):
                self._conn.sock.shutdown(socket.SHUT_RDWR)
        self.close()

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _send(
        self, method: str, path: str, data: bytes | None, headers: dict[str, str]
    ) -> tuple[int, bytes]:
        conn = self._connection()
        conn.request(method, path, body=data, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()

    def _connection(self) -> http.client.HTTPSConnection:
        if self._conn is None:
            self._conn = http.client.HTTPSConnection(
                self._endpoint.host,
                self._endpoint.port,
                context=self._context,
                timeout=self._timeout,
            )
        return self._conn


def pod_path(namespace: str, name: str = "") -> str:
    return f"/api/v1/namespaces/{namespace}/pods" + (f"/{name}" if name else "")


def deployment_path(namespace: str, name: str = "") -> str:
    return f"/apis/apps/v1/namespaces/{namespace}/deployments" + (f"/{name}" if name else "")


def service_path(namespace: str, name: str = "") -> str:
    return f"/api/v1/namespaces/{namespace}/services" + (f"/{name}" if name else "")
