"""kube-notifier: Kubernetes object changes in, notifications people can act on out.

``__version__`` is looked up when first asked for (``importlib.metadata`` is a
tenth of the imports of ``rules check``, which never asks).
"""

from __future__ import annotations

import functools


def __getattr__(name: str) -> str:
    if name == "__version__":
        return _version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415 - see above

    try:
        return version("kube-notifier")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0.0.0+unknown"
