"""Every receiver's secret fields written inline are warned about, each located.

The secret fields are read from each receiver's settings model (its ``SecretStr``
fields); the table below has one config per receiver type with secrets, so a new
receiver with a secret fails here until its inline secret is shown to be warned about.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from notifier.config import read_config_text
from notifier.config.linting import secret_fields

TOKEN = "Zx81kQ2v7Lm0PaT5rW9c"  # random-looking, as real secrets are
# One valid sink per receiver type, each secret written inline: (settings, the secret keys).
INLINE: dict[str, tuple[dict[str, Any], list[str]]] = {
    "slack": ({"channel": "#a", "token": f"xoxb-{TOKEN}"}, ["token"]),
    "webhook": ({"url": "https://example.com/hook", "hmac_secret": TOKEN}, ["hmac_secret"]),
    "alertmanager": ({"urls": ["http://am:9093"], "bearer_token": TOKEN}, ["bearer_token"]),
    "email": ({"host": "smtp.example.com", "from": "kn@example.com", "to": ["a@example.com"],
               "username": "kn", "password": TOKEN}, ["password"]),
    "pagerduty": ({"routing_key": TOKEN.ljust(32, "0")}, ["routing_key"]),
    "opsgenie": ({"api_key": TOKEN}, ["api_key"]),
    "telegram": ({"bot_token": f"123456:{TOKEN}", "chat_id": "-100"}, ["bot_token"]),
    "discord": ({"url": "https://discord.com/api/webhooks/1/abc"}, ["url"]),
    "msteams": ({"url": "https://example.webhook.office.com/webhookb2/x"}, ["url"]),
    "googlechat": ({"url": "https://chat.googleapis.com/v1/spaces/S/messages"}, ["url"]),
    "mattermost": ({"url": "https://mm.example.com/hooks/short"}, ["url"]),
}  # fmt: skip


def config_text(kind: str, settings: dict[str, Any]) -> str:
    return yaml.safe_dump({"sinks": [{"name": "out", "type": kind, **settings}]}, sort_keys=False)


def warnings_of(kind: str, settings: dict[str, Any]) -> list[str]:
    text = config_text(kind, settings)
    return [str(warning) for warning in read_config_text(text, "c.yaml").warnings]


def test_every_receiver_with_secret_fields_is_in_the_table() -> None:
    assert {kind for kind, keys in secret_fields().items() if keys} == set(INLINE)
    assert secret_fields()["slack"] == {"token", "webhook_url"}
    assert all(set(keys) <= secret_fields()[kind] for kind, (_, keys) in INLINE.items())


@pytest.mark.parametrize("kind", sorted(INLINE))
def test_an_inline_secret_is_warned_about_at_its_key(kind: str) -> None:
    settings, keys = INLINE[kind]
    found = warnings_of(kind, settings)
    assert len(found) == len(keys), found
    lines = config_text(kind, settings).splitlines()
    for key, warning in zip(keys, found, strict=True):
        line = next(number for number, text in enumerate(lines, 1) if f" {key}: " in text)
        assert warning.startswith(f"c.yaml:{line}:")
        assert f"warning: sinks[0].{key}: {key} is a secret, written inline" in warning
        assert warning.endswith(f"or in {key}_file")


@pytest.mark.parametrize("kind", sorted(INLINE))
def test_a_secret_from_the_environment_or_a_file_is_not_warned_about(kind: str) -> None:
    settings, keys = INLINE[kind]
    from_environment = {key: "${SECRET}" if key in keys else value
                        for key, value in settings.items()}  # fmt: skip
    text = yaml.safe_dump({"sinks": [{"name": "out", "type": kind, **from_environment}]})
    loaded = read_config_text(text, "c.yaml", environ={"SECRET": TOKEN.ljust(32, "0")})
    assert loaded.warnings == ()


def test_a_webhook_url_is_a_secret_only_when_it_carries_one() -> None:
    assert warnings_of("webhook", {"url": "https://events.pagerduty.com/v2/enqueue"}) == []
    [warning] = warnings_of("webhook", {"url": f"https://example.com/hook?token={TOKEN}"})
    assert "sinks[0].url: this url carries a secret (query parameter token)" in warning


def test_an_alertmanager_url_with_credentials_is_warned_about() -> None:
    [warning] = warnings_of("alertmanager", {"urls": ["http://am:9093", "http://u:pw@am:9093"]})
    assert "sinks[0].urls[1]: this url carries a secret (credentials before the host)" in warning
