"""Slack's credentials and channel, checked without posting: ``auth.test``, then the channel.

A channel given by ID (``C0123ABCD``) is looked up with ``conversations.info``;
one given by name (``#ops``) is looked for in ``conversations.list`` (public
and private channels the token sees, at most ``MAX_PAGES`` pages of 1,000).
Slack's refusals (``invalid_auth``, ``token_revoked``, ``channel_not_found``,
``missing_scope`` ...) are a failing verdict; a network failure or a 5xx is
"could not tell".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from notifier.sinks.base import Verdict

MAX_PAGES = 10
_CHANNEL_ID = re.compile(r"[CGD][A-Z0-9]{6,}")


def check_slack(client: WebClient, channel: str) -> Verdict:
    who = _ask(client.auth_test)
    if not isinstance(who, dict):
        return who
    wanted = channel.lstrip("#")
    if _CHANNEL_ID.fullmatch(wanted):
        found = _ask(lambda: client.conversations_info(channel=wanted))
        return found if isinstance(found, Verdict) else _ok(who, channel)
    return _by_name(client, wanted, who, channel)


def _by_name(client: WebClient, name: str, who: dict[str, Any], channel: str) -> Verdict:
    cursor = None
    for _ in range(MAX_PAGES):
        page = _ask(lambda c=cursor: client.conversations_list(  # type: ignore[misc]
            types="public_channel,private_channel", limit=1000, cursor=c,
            exclude_archived=True,
        ))  # fmt: skip
        if isinstance(page, Verdict):
            return page
        if any(c.get("name") == name or c.get("id") == name for c in page.get("channels", [])):
            return _ok(who, channel)
        cursor = (page.get("response_metadata") or {}).get("next_cursor")
        if not cursor:
            return Verdict(
                False, f"channel_not_found: {channel} is not among the channels the token sees"
            )
    return Verdict(None, f"{channel} not in the first {MAX_PAGES} pages of conversations.list")


def _ok(who: dict[str, Any], channel: str) -> Verdict:
    return Verdict(
        True, f"token of {who.get('user', '?')} in team {who.get('team', '?')}; {channel} found"
    )


def _ask(call: Callable[[], Any]) -> dict[str, Any] | Verdict:
    """Slack's answer as a dict, or the verdict its failure is."""
    try:
        answer = call()
    except SlackApiError as err:
        status = err.response.status_code
        data = err.response.data
        error = str(data.get("error", "")) if isinstance(data, dict) else ""
        if status == 429 or status >= 500 or not error:
            return Verdict(None, f"slack answered {status}")
        return Verdict(False, error[:100])
    except Exception as err:  # what the transport raised: unreachable, a timeout, a proxy
        return Verdict(None, f"slack unreachable: {type(err).__name__}")
    return dict(answer.data) if isinstance(answer.data, dict) else Verdict(None, "not JSON")
