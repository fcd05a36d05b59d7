"""``AlertmanagerSink``: each notification as alerts posted to every configured Alertmanager.

Alertmanager peers gossip silences and what they notified, not alerts, so
each one is sent every alert (as Prometheus sends to an HA pair). A send
succeeds when at least one peer took it; a peer that missed it gets it with
the next refresh. What is still firing (from rules with ``send_resolved``,
whose end will be told) is kept in an ``AlertStore`` and sent again every
``resend_interval`` by the sink's own thread, so Alertmanager does not end
it after its ``resolve_timeout``; a resolution sends the alert as it was
fired with ``endsAt`` and forgets it. Sends and refreshes take one lock, so
a refresh never re-fires what a resolution just ended. Thread-safe.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence

import msgspec

from notifier.notifications import Notification
from notifier.sinks.alertmanager.alerts import Alert, ended, facts_per_alert, new_alert
from notifier.sinks.alertmanager.open_alerts import AlertStore
from notifier.sinks.base import Capabilities, SendError
from notifier.sinks.http import first_failure, post
from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.secrets import redact_url
from notifier.sinks.showing import shown
from notifier.sinks.transport import Transport
from notifier.supervision import supervised

log = logging.getLogger("notifier.sinks")
API_PATH = "/api/v2/alerts"
MAX_OPEN_ALERTS = 10_000  # per sink; the oldest is forgotten past it (Alertmanager then ends it)
_REFRESH_BATCH = 100  # alerts per refresh request

_decode = msgspec.json.Decoder(dict[str, object])


class AlertmanagerSink:
    def __init__(
        self,
        name: str,
        transports: Sequence[Transport],
        *,
        template: ReceiverTemplate,
        labels: dict[str, str],
        headers: dict[str, str],
        store: AlertStore,
        resend_interval: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._name = name
        self._transports = tuple(transports)
        self._template = template
        self._labels = labels
        self._headers = headers
        self._store = store
        self._resend_interval = resend_interval
        self._clock = clock
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._open: dict[str, Alert] = {
            fingerprint: alert
            for fingerprint, body in store.open_alerts(name).items()
            if (alert := _decoded(body)) is not None
        }

    @property
    def name(self) -> str:
        return self._name

    @property
    def integration(self) -> str:
        return "alertmanager"

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities(resolve=True, threads=False, update_in_place=True)

    @property
    def open_count(self) -> int:
        with self._lock:
            return len(self._open)

    def preview(self, notification: Notification) -> str:
        return shown([alert for _, alert in self._alerts(notification)])

    def send(self, notification: Notification) -> None:
        with self._lock:
            alerts = self._alerts(notification)
            self._post_all(msgspec.json.encode([alert for _, alert in alerts]))
            for fingerprint, alert in alerts:
                if notification.resolves:
                    self._forget(fingerprint)
                elif notification.facts.get("send_resolved"):
                    self._keep(fingerprint, alert)

    def refresh(self) -> None:
        """Send what is still firing again; a failure is logged (the next refresh tries again)."""
        with self._lock:
            alerts = list(self._open.values())
            for start in range(0, len(alerts), _REFRESH_BATCH):
                try:
                    self._post_all(msgspec.json.encode(alerts[start : start + _REFRESH_BATCH]))
                except SendError as err:
                    log.warning(
                        "sink %s: re-sending %d firing alerts failed: %s",
                        self._name,
                        len(alerts),
                        err,
                    )
                    return

    def start(self) -> None:
        name = f"refresh-{self._name}"
        thread = threading.Thread(
            target=supervised(name, self._refreshing, family="refresh"), name=name, daemon=True
        )
        thread.start()

    def close(self) -> None:
        self._stopped.set()
        for transport in self._transports:
            transport.close()

    def _refreshing(self) -> None:
        # At once first: after a restart, Alertmanager may have ended what we were refreshing.
        while not self._stopped.is_set():
            self.refresh()
            self._stopped.wait(self._resend_interval)

    def _alerts(self, notification: Notification) -> list[tuple[str, Alert]]:
        alerts = []
        for facts in facts_per_alert(notification):
            fingerprint = str(facts.get("fingerprint", ""))
            told = self._open.get(fingerprint)
            if notification.resolves:
                alert = ended(told or new_alert(facts, self._template, self._labels), facts)
            else:
                alert = new_alert(facts, self._template, self._labels)
                if told is not None:  # the same alert: its labels and start as first told
                    alert = {**alert, "labels": told["labels"], "startsAt": told["startsAt"]}
            alerts.append((fingerprint, alert))
        return alerts

    def _post_all(self, body: bytes) -> None:
        failures: list[SendError] = []
        for transport in self._transports:
            try:
                post(transport, body, self._headers, clock=self._clock)
            except SendError as err:
                failures.append(err)
                log.warning(
                    "sink %s: %s did not take the alerts: %s",
                    self._name,
                    redact_url(transport.url),
                    err,
                )
        if len(failures) == len(self._transports):
            raise first_failure(failures)

    def _keep(self, fingerprint: str, alert: Alert) -> None:
        self._open[fingerprint] = alert
        self._store.keep_alert(self._name, fingerprint, msgspec.json.encode(alert))
        if len(self._open) > MAX_OPEN_ALERTS:
            self._forget(next(iter(self._open)))

    def _forget(self, fingerprint: str) -> None:
        if self._open.pop(fingerprint, None) is not None:
            self._store.drop_alert(self._name, fingerprint)


def _decoded(body: bytes) -> Alert | None:
    try:
        return dict(_decode.decode(body))
    except msgspec.DecodeError:
        return None
