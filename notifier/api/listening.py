"""Whether the HTTP address can be listened on, asked before anything starts.

uvicorn finds a port in use only once the service is up, and says so with
two chained tracebacks from its thread; a bind tried first turns that into
one line and ``Exit.LISTEN``.
"""

from __future__ import annotations

import socket


def listen_problem(host: str, port: int) -> str | None:
    """None if ``host:port`` can be bound now (as uvicorn binds it), else what is wrong."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as err:
            reason = (err.strerror or str(err)).lower()
            return (
                f"cannot listen on {host}:{port} for /healthz, /readyz and /metrics: {reason} "
                "(is another kube-notifier running? choose another address with --listen "
                "or KUBE_NOTIFIER_LISTEN)"
            )
    return None
