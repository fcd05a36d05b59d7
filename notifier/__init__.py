"""kube-notifier: Kubernetes object changes in, notifications people can act on out."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("kube-notifier")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"
