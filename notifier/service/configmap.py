"""Hot reload straight from the rules ConfigMap, watched through the API.

A mounted ConfigMap reaches the file only after the kubelet's sync (up to
a minute or more); watching it is immediate. A rejected change is logged
with every error, recorded as a Warning Event on the ConfigMap (so
``kubectl describe configmap`` shows it), and the last good rules keep
running.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging

import msgspec

from notifier.config.reloading import ReloadResult, RulesHolder
from notifier.service.reloading import report
from notifier.source.client import ApiError, RawClient
from notifier.source.watching import WatchLoop

log = logging.getLogger("notifier.config")

CONFIG_KEY = "config.yaml"
GONE = 410
EVENT_MESSAGE_LIMIT = 1024


class _Meta(msgspec.Struct, rename="camel"):
    uid: str = ""
    resource_version: str = ""


class _ConfigMap(msgspec.Struct):
    metadata: _Meta = msgspec.field(default_factory=_Meta)
    data: dict[str, str] = {}


class _Event(msgspec.Struct):
    type: str
    object: _ConfigMap


_CONFIG_MAP = msgspec.json.Decoder(_ConfigMap)
_EVENT = msgspec.json.Decoder(_Event)


class ConfigMapReloader(WatchLoop):
    def __init__(
        self, client: RawClient, holder: RulesHolder, namespace: str, name: str, *, reporter: str
    ) -> None:
        super().__init__(client, f"configmap {namespace}/{name}")
        self._holder = holder
        self._namespace = namespace
        self._name = name
        self._reporter = reporter
        self._collection = f"/api/v1/namespaces/{namespace}/configmaps"
        self._applied = ""

    def read(self) -> str:
        config_map = _CONFIG_MAP.decode(self._client.get(f"{self._collection}/{self._name}", {}))
        self.apply(config_map)
        return config_map.metadata.resource_version

    def follow(self, version: str) -> None:
        query = {
            "watch": "true",
            "fieldSelector": f"metadata.name={self._name}",
            "resourceVersion": version,
            "timeoutSeconds": "300",
        }
        try:
            for line in self._client.stream_lines(self._collection, query, 90.0):
                event = _EVENT.decode(line)
                if event.type in ("ADDED", "MODIFIED"):
                    self.apply(event.object)
        except msgspec.ValidationError:
            return  # an ERROR event (410 and the like): read it afresh
        except ApiError as err:
            if err.status != GONE:
                raise

    def apply(self, config_map: _ConfigMap) -> ReloadResult | None:
        text = config_map.data.get(CONFIG_KEY)
        if text is None:
            log.error("%s has no key %r; keeping the current rules", self.name, CONFIG_KEY)
            return None
        digest = hashlib.sha256(text.encode()).hexdigest()
        if digest == self._applied:
            return None
        self._applied = digest
        result = self._holder.reload_text(text, f"{self.name} ({CONFIG_KEY})")
        report(result, self.name)
        if not result.ok:
            self._record_rejection(config_map, result)
        return result

    def _record_rejection(self, config_map: _ConfigMap, result: ReloadResult) -> None:
        errors = "; ".join(str(issue) for issue in result.issues)
        message = f"config rejected, the last good rules keep running: {errors}"
        now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        event = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"generateName": f"{self._name}.", "namespace": self._namespace},
            "involvedObject": {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "namespace": self._namespace,
                "name": self._name,
                "uid": config_map.metadata.uid,
                "resourceVersion": config_map.metadata.resource_version,
            },
            "reason": "ConfigRejected",
            "message": message[:EVENT_MESSAGE_LIMIT],
            "type": "Warning",
            "source": {"component": "kube-notifier"},
            "reportingComponent": "kube-notifier",
            "reportingInstance": self._reporter,
            "firstTimestamp": now,
            "lastTimestamp": now,
            "count": 1,
        }
        try:
            self._client.send("POST", f"/api/v1/namespaces/{self._namespace}/events", body=event)
        except ApiError as err:
            log.warning("could not record the rejection as an Event: %s", err)
