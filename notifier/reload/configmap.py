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

from notifier.reload.holder import ReloadResult, RulesHolder
from notifier.reload.polling import report
from notifier.source.client import ApiError, RawClient
from notifier.source.configmaps import ConfigMap, WatchedConfigMap
from notifier.source.reflector import ReflectorSettings
from notifier.source.watcher import DEFAULT_SETTINGS

log = logging.getLogger("notifier.config")

CONFIG_KEY = "config.yaml"
EVENT_MESSAGE_LIMIT = 1024


class ConfigMapReloader:
    def __init__(
        self,
        client: RawClient,
        holder: RulesHolder,
        namespace: str,
        name: str,
        *,
        reporter: str,
        settings: ReflectorSettings = DEFAULT_SETTINGS,
    ) -> None:
        self.watch = WatchedConfigMap(
            client, "configmap", namespace, name, self.apply, settings=settings
        )
        self.name, self.namespace, self.config_map_name = self.watch.name, namespace, name
        self._client = client
        self._holder = holder
        self._reporter = reporter
        self._applied = ""

    def start(self) -> None:
        self.watch.start()

    def stop(self) -> None:
        self.watch.stop()

    def apply(self, config_map: ConfigMap) -> ReloadResult | None:
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

    def _record_rejection(self, config_map: ConfigMap, result: ReloadResult) -> None:
        errors = "; ".join(str(issue) for issue in result.issues)
        message = f"config rejected, the last good rules keep running: {errors}"
        now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        event = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"generateName": f"{self.config_map_name}.", "namespace": self.namespace},
            "involvedObject": {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "namespace": self.namespace,
                "name": self.config_map_name,
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
            self._client.send("POST", f"/api/v1/namespaces/{self.namespace}/events", body=event)
        except ApiError as err:
            log.warning("could not record the rejection as an Event: %s", err)
