"""The silences ConfigMap, watched: every replica applies a change within a second or so.

Why a ConfigMap: every replica can watch it (no leader needed), it outlives
restarts, ``kubectl get configmap -o yaml`` shows it, RBAC can be narrowed
to its name, and nothing needs installing (a CRD would). The key
``silences.json`` holds the list ``kube-notifier silence`` writes. A change
that cannot be read keeps the silences in force and says why; a silence
that cannot be used is left out, named in the log.
"""

from __future__ import annotations

import hashlib
import logging
import time

import msgspec

from notifier.silences.book import SILENCES_DECODER, SILENCES_KEY, SilenceBook
from notifier.source.client import RawClient
from notifier.source.configmaps import ConfigMap, WatchedConfigMap
from notifier.source.reflector import ReflectorSettings
from notifier.source.watcher import DEFAULT_SETTINGS

log = logging.getLogger("notifier.config")


class SilenceWatch:
    def __init__(
        self,
        client: RawClient,
        book: SilenceBook,
        namespace: str,
        name: str,
        *,
        settings: ReflectorSettings = DEFAULT_SETTINGS,
    ) -> None:
        self.watch = WatchedConfigMap(
            client, "silences", namespace, name, self.apply, settings=settings
        )
        self.name = self.watch.name
        self._book = book
        self._applied = ""

    def start(self) -> None:
        self.watch.start()

    def stop(self) -> None:
        self.watch.stop()

    def apply(self, config_map: ConfigMap) -> None:
        text = config_map.data.get(SILENCES_KEY, "[]")
        digest = hashlib.sha256(text.encode()).hexdigest()
        if digest == self._applied:
            return
        try:
            silences = SILENCES_DECODER.decode(text)
        except msgspec.DecodeError as err:
            log.error("%s: %s is unreadable (%s); the silences in force stay", self.name,
                      SILENCES_KEY, err)  # fmt: skip
            return
        self._applied = digest
        for problem in self._book.replace(silences):
            log.error("%s: %s; left out", self.name, problem)
        now = time.time()
        active = sum(1 for silence in self._book.all() if silence.active(now))
        log.info("%s: %d silences, %d active", self.name, len(self._book.all()), active)
