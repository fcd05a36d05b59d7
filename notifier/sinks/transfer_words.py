"""A failed transfer in the words a person reads: "connection refused", "no answer in 10 s".

libcurl says ``Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect
to server`` and Python would say ``TransferError``; the on-call wants to know
whether the receiver refused, was silent, or was not who it claimed to be. The
reason labels (``connection_error``, ``timeout``, ``tls_verify_failed``) stay
as they are for metrics; these words go in the detail, the log line and
``sinks test``'s FAILED line.
"""

from __future__ import annotations

import os

import pycurl

_BY_CODE = {
    pycurl.E_COULDNT_RESOLVE_HOST: "name not resolved",
    51: "TLS certificate not for this host",
    60: "TLS certificate not trusted",
    83: "TLS certificate issuer not trusted",
    58: "TLS client certificate or key not usable",
    52: "the receiver closed the connection without answering",
    55: "the connection broke while sending",
}
_TLS = frozenset({35, 53, 54, 59, 64, 66, 77, 80, 82, 90, 91, 98})
_CUT_SHORT = frozenset({18, 56})  # a body shorter than announced; the connection reset


def described(code: int, message: str, *, received: int, errno: int) -> str:
    """``code`` and ``message`` as libcurl gave them; ``received``: bytes of the answer so
    far; ``errno``: the system's error for the connection, 0 if none."""
    if code in _BY_CODE:
        return _BY_CODE[code]
    if code in _TLS:
        return f"TLS handshake failed ({message})"
    if received and code in _CUT_SHORT:
        return stopped(received)
    if errno:  # ECONNREFUSED: "connection refused"; EHOSTUNREACH, ECONNRESET, ...
        return os.strerror(errno).lower()
    return message or f"libcurl error {code}"


def silence(received: int, read_timeout: float) -> str:
    """A receiver that went quiet for the read timeout, before or after answering a part."""
    return stopped(received) if received else f"no answer in {read_timeout:g} s"


def stopped(received: int) -> str:
    return f"the receiver stopped sending after {received:,} bytes"
