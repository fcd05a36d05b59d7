"""Reading secrets at build time, and keeping them out of logs.

A secret comes either inline (already expanded from ``${ENV}`` by the
config loader) or from a ``*_file`` read once when the sink is built, the
way Kubernetes mounts Secrets. Trailing newlines in files are dropped.

Secret URLs (Slack incoming webhooks, webhook URLs with tokens in the path
or query) are shown only as ``scheme://host[:port]/…`` by ``redact_url``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

from pydantic import SecretStr

if TYPE_CHECKING:  # imported when a sink with TLS settings is built: it imports pycurl
    from notifier.sinks.exchange import Tls


class SinkBuildError(Exception):
    """A sink cannot be built from its config; the message names the sink and field, and
    ``key`` is that field's key under the sink ("token_file"), when there is one to point at."""

    def __init__(self, message: str, *, key: str = "") -> None:
        super().__init__(message)
        self.key = key


_read_files: ContextVar[bool] = ContextVar("read_files", default=True)


@contextmanager
def files_unread() -> Iterator[None]:
    """Build sinks without reading secret or TLS files: a stand-in takes each file's place.

    For checking a config where its files are not (a rendered chart, outside the pod).
    """
    token = _read_files.set(False)
    try:
        yield
    finally:
        _read_files.reset(token)


def files_read() -> bool:
    return _read_files.get()


class TlsSettings(Protocol):
    """A sink's TLS settings, as its config names them."""

    @property
    def tls_verify(self) -> bool: ...
    @property
    def ca_file(self) -> str | None: ...
    @property
    def client_cert_file(self) -> str | None: ...
    @property
    def client_key_file(self) -> str | None: ...


def tls_key(settings: TlsSettings) -> str:
    """The TLS file key to point at when the files cannot be used: the first one set."""
    return "ca_file" if settings.ca_file or not settings.client_cert_file else "client_cert_file"


def tls_of(settings: TlsSettings) -> Tls:
    """What a sink checks and presents; without its files when they are not read here
    (they are in the pod, not where ``rules check --no-files`` runs)."""
    from notifier.sinks.exchange import Tls  # noqa: PLC0415 - see the imports

    own_files = files_read()
    return Tls(
        verify=settings.tls_verify,
        ca_file=settings.ca_file if own_files else None,
        client_cert=settings.client_cert_file if own_files else None,
        client_key=settings.client_key_file if own_files else None,
    )


def read_secret(sink: str, field: str, value: SecretStr | None, file: str | None) -> str | None:
    """The secret's text, from ``value`` or from the file ``file``; None when neither is set."""
    if value is not None:
        return value.get_secret_value()
    if file is None:
        return None
    if not files_read():
        return "https://stand-in.invalid/" if field.endswith("url") else "stand-in"
    try:
        text = Path(file).read_text(encoding="utf-8")
    except OSError as err:
        raise SinkBuildError(
            f"sink {sink!r}: cannot read {field}_file {file!r}: {err.strerror}",
            key=f"{field}_file",
        ) from None
    return text.rstrip("\r\n")


def require_secret(sink: str, field: str, value: SecretStr | None, file: str | None) -> str:
    secret = read_secret(sink, field, value, file)
    if not secret:
        key = field if value is not None else f"{field}_file"
        raise SinkBuildError(f"sink {sink!r}: {field} is empty", key=key)
    return secret


def redact_url(url: str) -> str:
    """``https://hooks.slack.com/services/T/B/x`` -> ``https://hooks.slack.com/…``."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or "?"
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "<invalid url>"
    return f"{parts.scheme or '?'}://{host}{port}/…"


def checked_url(sink: str, field: str, url: str) -> str:
    try:
        parts = urlsplit(url)
        usable = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        usable = False
    if not usable:
        # The URL is a secret: say what is wrong, not what it is.
        raise SinkBuildError(
            f"sink {sink!r}: {field} must be an http(s) URL with a host", key=field
        )
    return url
