"""Service-level metrics: what build is running."""

from __future__ import annotations

import platform

from prometheus_client import Info, disable_created_metrics

from notifier import __version__

# `_created` series double the counters for no use on a dashboard.
disable_created_metrics()  # type: ignore[no-untyped-call]

BUILD = Info("kube_notifier_build", "The running build: version and Python.")
BUILD.info({"version": __version__, "python": platform.python_version()})
