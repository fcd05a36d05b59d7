"""Credentials checked at start: each sink that can check them without sending does, once.

Slack's bot token (``auth.test``) and its channel are the case in point: a
bad token or a missing channel used to be found when the first real incident
was dead-lettered. ``CredentialChecks.run`` asks each ``CredentialChecking``
sink on its own thread (a check may wait on the network), then says what it
found three ways: one log line per sink, the
``kube_notifier_sink_credentials_ok`` gauge (1 accepted, 0 refused, -1 could
not tell) and ``refused()``, which /readyz reports (``sink-credentials``).
A check that could not tell (Slack unreachable) fails nothing.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable

from prometheus_client import Gauge

from notifier.sinks.base import CredentialChecking, Sink, Verdict
from notifier.supervision import supervised

log = logging.getLogger("notifier.delivery")

CREDENTIALS_OK = Gauge(
    "kube_notifier_sink_credentials_ok",
    "Credentials checked at start without sending: 1 accepted, 0 refused, -1 could not tell.",
    ["integration", "sink"],
)


class CredentialChecks:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._refused: dict[str, str] = {}
        self._done = threading.Event()

    def run(self, sinks: Iterable[Sink]) -> threading.Thread:
        """Check every sink that can, on a thread of its own; returns it (already started)."""
        checking = [sink for sink in sinks if isinstance(sink, CredentialChecking)]
        thread = threading.Thread(
            target=supervised("credential-checks", self._check_all), args=(checking,),
            name="credential-checks", daemon=True,
        )  # fmt: skip
        thread.start()
        return thread

    def refused(self) -> dict[str, str]:
        """Sinks whose credentials were refused, with what the receiver said."""
        with self._lock:
            return dict(self._refused)

    def wait(self, timeout: float | None = None) -> bool:
        return self._done.wait(timeout)

    def _check_all(self, sinks: list[Sink]) -> None:
        for sink in sinks:
            assert isinstance(sink, CredentialChecking)
            verdict = _checked(sink)
            self._record(sink, verdict)
        self._done.set()

    def _record(self, sink: Sink, verdict: Verdict) -> None:
        value = {True: 1, False: 0, None: -1}[verdict.ok]
        CREDENTIALS_OK.labels(sink.integration, sink.name).set(value)
        if verdict.ok is False:
            with self._lock:
                self._refused[sink.name] = verdict.detail
            log.error("sink %s: credentials refused: %s", sink.name, verdict.detail)
        elif verdict.ok:
            log.info("sink %s: credentials accepted: %s", sink.name, verdict.detail)
        else:
            log.warning("sink %s: credentials not checked: %s", sink.name, verdict.detail)


def _checked(sink: CredentialChecking) -> Verdict:
    try:
        return sink.check_credentials()
    except Exception as err:  # a check that fails is a check that could not tell
        return Verdict(None, f"check failed: {type(err).__name__}")
