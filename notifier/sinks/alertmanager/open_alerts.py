"""Where an Alertmanager sink keeps what is still firing, so a restart goes on re-sending it.

One alert per fingerprint (rule + object), as posted (JSON bytes), per
sink (``scope``). ``notifier.state`` provides the durable store;
``MemoryAlerts`` serves runs without a state database.
"""

from __future__ import annotations

import threading
from typing import Protocol


class AlertStore(Protocol):
    def open_alerts(self, scope: str) -> dict[str, bytes]: ...

    def keep_alert(self, scope: str, fingerprint: str, alert: bytes) -> None: ...

    def drop_alert(self, scope: str, fingerprint: str) -> None: ...


class MemoryAlerts:
    def __init__(self) -> None:
        self._alerts: dict[tuple[str, str], bytes] = {}
        self._lock = threading.Lock()

    def open_alerts(self, scope: str) -> dict[str, bytes]:
        with self._lock:
            return {key[1]: alert for key, alert in self._alerts.items() if key[0] == scope}

    def keep_alert(self, scope: str, fingerprint: str, alert: bytes) -> None:
        with self._lock:
            self._alerts[scope, fingerprint] = alert

    def drop_alert(self, scope: str, fingerprint: str) -> None:
        with self._lock:
            self._alerts.pop((scope, fingerprint), None)
