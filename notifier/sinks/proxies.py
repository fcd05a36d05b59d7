"""Which proxy an HTTP sink sends through: its own setting, else the environment's.

``HTTPS_PROXY`` / ``HTTP_PROXY`` (either case) by the target's scheme, unless
``NO_PROXY`` names the host, as curl reads it: ``*`` for every host, a name
(``example.com`` also covers ``api.example.com``), an IP address or a network
in CIDR form (``10.0.0.0/8``). A sink's ``proxy`` setting overrides them: a
URL, or ``direct`` for none. ``user:password@`` in a proxy URL becomes a
``Proxy-Authorization`` header (``proxy_auth``).
"""

from __future__ import annotations

import base64
import ipaddress
import os
import urllib.request
from urllib.parse import unquote, urlsplit, urlunsplit

DIRECT = "direct"


def proxy_for(url: str, setting: str | None) -> str | None:
    """The proxy URL to send ``url`` through, or None to connect directly."""
    if setting is not None:
        return None if setting == DIRECT else setting
    parts = urlsplit(url)
    if bypassed(parts.hostname or "", _no_proxy()):
        return None
    return urllib.request.getproxies_environment().get(parts.scheme)


def proxy_auth(proxy: str) -> tuple[str, dict[str, str]]:
    """The proxy URL without credentials, and the header that carries them (if any)."""
    parts = urlsplit(proxy)
    if parts.username is None:
        return proxy, {}
    pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
    netloc = parts.netloc.rpartition("@")[2]
    plain = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    return plain, {"Proxy-Authorization": "Basic " + base64.b64encode(pair).decode()}


def bypassed(host: str, entries: list[str]) -> bool:
    """Whether NO_PROXY ``entries`` name ``host``: ``*``, a domain, an IP or a CIDR network."""
    address = _address(host)
    for entry in entries:
        if entry == "*":
            return True
        if address is not None and "/" in entry:
            try:
                if address in ipaddress.ip_network(entry, strict=False):
                    return True
            except ValueError:
                continue
        name = entry.lstrip(".").lower()
        if host.lower() == name or host.lower().endswith("." + name):
            return True
    return False


def _no_proxy() -> list[str]:
    raw = os.environ.get("no_proxy") or os.environ.get("NO_PROXY") or ""
    return [_without_port(entry.strip()) for entry in raw.split(",") if entry.strip()]


def _without_port(entry: str) -> str:
    # "host:8080" names the host; an IPv6 address has several colons and keeps them.
    return entry.rsplit(":", 1)[0] if entry.count(":") == 1 else entry


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None
