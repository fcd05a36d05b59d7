"""The Lease as we read and write it (coordination.k8s.io/v1, raw JSON)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec

from notifier.source.client import ApiError, RawClient

NOT_FOUND = 404
CONFLICT = 409


@dataclass(frozen=True)
class LeaseRecord:
    holder: str
    duration_seconds: int
    renew_time: str  # as the server has it: compared for change, never against our clock
    transitions: int
    resource_version: str = ""


class LeaseClient(Protocol):
    def get(self) -> LeaseRecord | None: ...

    def create(self, record: LeaseRecord) -> bool:
        """False when someone else created it first."""
        ...

    def update(self, record: LeaseRecord) -> bool:
        """False on a conflict (someone wrote since ``record.resource_version``)."""
        ...


class _Meta(msgspec.Struct, rename="camel"):
    resource_version: str = ""


class _Spec(msgspec.Struct, rename="camel"):
    holder_identity: str | None = None
    lease_duration_seconds: int | None = None
    renew_time: str | None = None
    lease_transitions: int | None = None


class _Lease(msgspec.Struct):
    metadata: _Meta = msgspec.field(default_factory=_Meta)
    spec: _Spec = msgspec.field(default_factory=_Spec)


_DECODER = msgspec.json.Decoder(_Lease)


def micro_time(now: dt.datetime | None = None) -> str:
    moment = now or dt.datetime.now(dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class KubeLeaseClient:
    def __init__(self, client: RawClient, namespace: str, name: str) -> None:
        self._client = client
        self._namespace = namespace
        self._name = name
        self._collection = f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases"

    def get(self) -> LeaseRecord | None:
        try:
            lease = _DECODER.decode(self._client.get(f"{self._collection}/{self._name}", {}))
        except ApiError as err:
            if err.status == NOT_FOUND:
                return None
            raise
        spec = lease.spec
        return LeaseRecord(
            holder=spec.holder_identity or "",
            duration_seconds=spec.lease_duration_seconds or 0,
            renew_time=spec.renew_time or "",
            transitions=spec.lease_transitions or 0,
            resource_version=lease.metadata.resource_version,
        )

    def _body(self, record: LeaseRecord, *, acquired: bool) -> dict[str, Any]:
        now = micro_time()
        metadata: dict[str, Any] = {"name": self._name, "namespace": self._namespace}
        if record.resource_version:
            metadata["resourceVersion"] = record.resource_version  # optimistic concurrency
        spec: dict[str, Any] = {
            "holderIdentity": record.holder,
            "leaseDurationSeconds": record.duration_seconds,
            "renewTime": now,
            "leaseTransitions": record.transitions,
        }
        if acquired:
            spec["acquireTime"] = now
        return {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": metadata,
            "spec": spec,
        }

    def create(self, record: LeaseRecord) -> bool:
        return self._write("POST", self._collection, self._body(record, acquired=True))

    def update(self, record: LeaseRecord, *, acquired: bool = False) -> bool:
        body = self._body(record, acquired=acquired)
        return self._write("PUT", f"{self._collection}/{self._name}", body)

    def _write(self, method: str, path: str, body: dict[str, Any]) -> bool:
        try:
            self._client.send(method, path, body=body)
        except ApiError as err:
            if err.status == CONFLICT:
                return False
            raise
        return True
