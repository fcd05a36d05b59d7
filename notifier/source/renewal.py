"""When to load the credentials again, and doing it under one lock.

The ``kubernetes`` package loads credentials once and leaves renewal to a
``refresh_api_key_hook`` that falls short of what a long-lived watcher
needs, so we take that decision over (and clear the hook):

- its hook runs only for bearer tokens: an exec plugin that returns a client
  certificate is never run again;
- it reads a kubeconfig ``tokenFile`` once, where client-go re-reads it every
  minute (projected service account tokens rotate);
- it never drops credentials the API server refused: an exec plugin without
  ``expirationTimestamp``, an expired oidc id-token or a revoked token keep
  failing with 401 until a restart, where client-go runs the plugin again;
- it is not thread-safe: every informer thread could run the plugin at once.

So: load again before the next request after a 401, when an exec
credential is within ``EXPIRY_MARGIN_SECONDS`` of its expiry, and every
``TOKEN_FILE_REREAD_SECONDS`` when a token comes from a file. A failed
renewal keeps the last credentials (a token file may be mid-rotation) and
is tried again a little later.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from kubernetes.client import ApiClient, Configuration
from kubernetes.client.rest import RESTClientObject
from kubernetes.config import ConfigException

log = logging.getLogger("notifier.source")

TOKEN_FILE_REREAD_SECONDS = 60.0
EXPIRY_MARGIN_SECONDS = 10.0
RETRY_FAILED_RENEWAL_SECONDS = 10.0


class Loader(Protocol):
    """``KubeConfigLoader`` or ``InClusterConfigLoader``: (re)load into a Configuration."""

    def load_and_set(self, configuration: Any) -> None: ...


class Renewal:
    def __init__(
        self,
        loader: Loader,
        configuration: Configuration,
        *,
        token_file: bool,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._loader = loader
        self.configuration = configuration
        self._token_file = token_file
        self._clock = clock
        self._lock = threading.Lock()
        self._renew_at = 0.0
        self._refused = False
        self.loads = 0

    def load(self) -> None:
        """Load now; a failure raises (the package's ConfigException, or OSError)."""
        with self._lock:
            self._load()

    def renew_if_due(self, api: ApiClient) -> None:
        """Before a request: load again when due; a new client certificate gets a new pool."""
        if not self._refused and self._clock() < self._renew_at:
            return
        with self._lock:
            if not self._refused and self._clock() < self._renew_at:
                return  # another thread renewed while we waited
            tls_before = (self.configuration.cert_file, self.configuration.key_file)
            try:
                self._load()
            except (ConfigException, OSError) as err:
                log.warning("cannot renew the Kubernetes credentials (%s); keeping the last", err)
                self._refused = False
                self._renew_at = self._clock() + RETRY_FAILED_RENEWAL_SECONDS
                return
            if (self.configuration.cert_file, self.configuration.key_file) != tls_before:
                api.rest_client = RESTClientObject(self.configuration)

    def refused(self) -> None:
        """The API server answered 401: load again before the next request."""
        self._refused = True

    def _load(self) -> None:
        # A plugin run that states no expiry must not inherit the last run's.
        vars(self._loader).pop("expiry", None)
        self._loader.load_and_set(self.configuration)
        self.configuration.refresh_api_key_hook = None  # renewal is ours (see the module doc)
        self._refused = False
        self._renew_at = self._next_renewal()
        self.loads += 1

    def _next_renewal(self) -> float:
        now = self._clock()
        due = now + TOKEN_FILE_REREAD_SECONDS if self._token_file else math.inf
        expiry = getattr(self._loader, "expiry", None)
        if isinstance(expiry, dt.datetime):
            left = (expiry - dt.datetime.now(dt.UTC)).total_seconds()
            due = min(due, now + max(0.0, left - EXPIRY_MARGIN_SECONDS))
        return due
