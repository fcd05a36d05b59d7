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

from notifier.rules.silences import SILENCES_DECODER, SILENCES_KEY, SilenceBook
from notifier.service.watched_configmap import ConfigMapBody, WatchedConfigMap
from notifier.source.client import RawClient

log = logging.getLogger("notifier.config")


class SilenceWatch(WatchedConfigMap):
    def __init__(self, client: RawClient, book: SilenceBook, namespace: str, name: str) -> None:
        super().__init__(client, "silences", namespace, name)
        self._book = book
        self._applied = ""

    def apply(self, config_map: ConfigMapBody) -> None:
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
