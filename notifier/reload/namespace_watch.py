"""The namespace watch, started by the first ``namespace_selector`` rule: at start or on a reload.

Namespaces are read only while some rule selects by their labels, so RBAC
to read them is needed only then. A reload that brings the first such rule
checks that we may list namespaces (a refusal rejects the reload with what
to grant), then starts the watch and waits a little for its first list, so
the new rules do not route as if every namespace had no labels. The watch
is not stopped when such rules go away again: it is cheap, and a later
reload would only start it again.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping

from notifier.config.errors import ConfigError, ConfigIssue
from notifier.config.loading import LoadedConfig
from notifier.reload.holder import Staged
from notifier.source.access import KubeAccessError, check_access
from notifier.source.client import RawClient
from notifier.source.namespaces import NamespaceLabels

log = logging.getLogger("notifier.service")

FIRST_LIST_WAIT_SECONDS = 10.0


class NamespaceWatch:
    def __init__(self, client: RawClient) -> None:
        self._client = client
        self._labels = NamespaceLabels(client)
        self._started = threading.Event()

    def __call__(self, namespace: str) -> Mapping[str, str] | None:
        """The rules' lookup: the labels of ``namespace``, None while unknown."""
        return self._labels(namespace)

    @property
    def watching(self) -> bool:
        return self._started.is_set()

    def listed(self) -> bool:
        """For /readyz (asked only while watching): the first list is in."""
        return self._labels.synced.is_set()

    def failing(self) -> bool:
        """For /readyz (asked only while watching): the watch cannot stay open."""
        return self._labels.failing

    def start(self) -> None:
        if not self._started.is_set():
            self._started.set()
            self._labels.start()

    def stop(self) -> None:
        if self._started.is_set():
            self._labels.stop()

    def stage(self, previous: LoadedConfig, candidate: LoadedConfig) -> Staged:
        """The reload stager: start watching when the candidate is the first to need it."""
        if self.watching or not candidate.config.uses_namespace_labels():
            return Staged(apply=_nothing)
        try:
            check_access(self._client, (), (), namespace_labels=True, known=candidate.kinds)
        except KubeAccessError as err:
            path = "rules (namespace_selector)"
            raise ConfigError([ConfigIssue(candidate.source, None, None, path, str(err))]) from None
        return Staged(apply=self._start_and_wait)

    def _start_and_wait(self) -> None:
        self.start()
        if not self._labels.synced.wait(FIRST_LIST_WAIT_SECONDS):
            log.warning(
                "namespaces not listed within %.0fs; namespace_selector rules match nothing "
                "until they are",
                FIRST_LIST_WAIT_SECONDS,
            )


def _nothing() -> None:
    return None
