"""Which proxy an HTTP sink sends through: its own setting, else the environment's.

``HTTPS_PROXY`` / ``HTTP_PROXY`` (either case) by the target's scheme, unless
``NO_PROXY`` names the host, as curl and most HTTP clients read them. A sink's
``proxy`` setting overrides them: a URL, or ``direct`` for none.
"""

from __future__ import annotations

import urllib.request
from urllib.parse import urlsplit

DIRECT = "direct"


def proxy_for(url: str, setting: str | None) -> str | None:
    """The proxy URL to send ``url`` through, or None to connect directly."""
    if setting is not None:
        return None if setting == DIRECT else setting
    parts = urlsplit(url)
    if urllib.request.proxy_bypass_environment(parts.hostname or ""):  # type: ignore[attr-defined]
        return None
    return urllib.request.getproxies_environment().get(parts.scheme)
