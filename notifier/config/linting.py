"""Warnings that never fail a load: secrets written inline.

A secret written as a literal value ends up in the ConfigMap, in ``kubectl
get -o yaml`` output and in git; it belongs in the environment
(``${SLACK_TOKEN}``, filled from a Secret) or in a file (``token_file``).
Only what is a secret is warned about, so the warning keeps its meaning:

- every field a receiver's settings model declares as ``SecretStr`` (read
  from each model, so a new receiver's secrets are covered when it is
  written): Slack's ``token`` and ``webhook_url``, PagerDuty's
  ``routing_key``, Opsgenie's ``api_key``, Telegram's ``bot_token``, the
  ``url`` of Discord, Teams, Google Chat and Mattermost (their webhook URL
  carries its token), Alertmanager's ``bearer_token``, email's ``password``,
  a webhook's ``hmac_secret``; and an ``Authorization``-like header;
- a generic webhook's ``url`` (and any other URL): only when it carries a
  secret: credentials before the host, a query parameter named like a key
  or token, a path on a service whose webhook URLs are the credential
  (Slack, Discord, Teams, Google Chat), or a long random path segment.
  ``https://events.pagerduty.com/v2/enqueue`` is public and is not warned about;
- a template's payload key named like a key or token (``routing_key``,
  ``api_key``) holding a literal rather than a ``{{ expression }}``.
"""

from __future__ import annotations

import functools
import re
import typing
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from pydantic import BaseModel, SecretStr

from notifier.config.documents import Document
from notifier.config.errors import ConfigIssue
from notifier.rules.config.problems import KeyPath, format_path
from notifier.sinks.config import SinkConfig

# A URL that is a secret field only when it carries one (a webhook may post to a public URL).
SECRET_ONLY_IF_IT_CARRIES_ONE = frozenset({("webhook", "url")})
SECRET_NAME = re.compile(
    r"(^|_|-)(key|token|secret|password|passwd|signature|sig|auth|authorization|apikey)($|_|-)",
    re.IGNORECASE,
)
SECRET_HOSTS = re.compile(
    r"(^|\.)(hooks\.slack\.com|discord(app)?\.com|webhook\.office\.com|outlook\.office\.com"
    r"|chat\.googleapis\.com|logic\.azure\.com)$"
)
RANDOM_SEGMENT = re.compile(r"^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9_-]{24,}$")


def secret_warnings(document: Document, source: str) -> list[ConfigIssue]:
    data = document.data if isinstance(document.data, dict) else {}
    found = [*_sink_secrets(data.get("sinks")), *_template_secrets(data.get("sinks"))]
    return [
        _warning(document, source, path, why)
        for path, why in found
        if path not in document.from_environment
    ]


def secret_fields() -> dict[str, frozenset[str]]:
    """Each receiver type's secret keys: the fields its settings model declares ``SecretStr``."""
    return dict(_secret_fields())


@functools.cache
def _secret_fields() -> tuple[tuple[str, frozenset[str]], ...]:
    union = typing.get_args(typing.get_args(SinkConfig)[0])
    models: list[type[BaseModel]] = [m for m in union if issubclass(m, BaseModel)]
    return tuple(
        (tag, frozenset(
            info.alias or name for name, info in model.model_fields.items()
            if _is_secret(info.annotation) and (tag, info.alias or name) not in
            SECRET_ONLY_IF_IT_CARRIES_ONE
        ))
        for model in models
        for tag in typing.get_args(model.model_fields["type"].annotation)
    )  # fmt: skip


def _is_secret(annotation: Any) -> bool:
    return annotation is SecretStr or SecretStr in typing.get_args(annotation)


def _sink_secrets(sinks: Any) -> Iterator[tuple[KeyPath, str]]:
    secrets = secret_fields()
    for index, sink in enumerate(sinks if isinstance(sinks, list) else []):
        if not isinstance(sink, dict):
            continue
        always = secrets.get(str(sink.get("type")), frozenset())
        for key in sorted(always):
            if isinstance(sink.get(key), str) and sink[key]:
                yield ("sinks", index, key), f"{key} is a secret"
        yield from _urls(sink, index, always)
        headers = sink.get("headers")
        for name, value in headers.items() if isinstance(headers, dict) else ():
            if SECRET_NAME.search(str(name)) and isinstance(value, str) and value:
                yield ("sinks", index, "headers", name), f"header {name} is a secret"


def _urls(
    sink: dict[str, Any], index: int, flagged: frozenset[str]
) -> Iterator[tuple[KeyPath, str]]:
    """URLs not already flagged as secrets that carry one (credentials, a key parameter)."""
    urls = sink.get("urls")
    found: list[tuple[KeyPath, Any]] = [
        (("sinks", index, "urls", position), url)
        for position, url in enumerate(urls if isinstance(urls, list) else [])
    ]
    if "url" not in flagged:
        found.append((("sinks", index, "url"), sink.get("url")))
    for path, url in found:
        if isinstance(url, str) and (why := _secret_in_url(url)) is not None:
            yield path, f"this url carries a secret ({why})"


def _secret_in_url(url: str) -> str | None:
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.username or parts.password:
        return "credentials before the host"
    secret_params = [name for name, _ in parse_qsl(parts.query) if SECRET_NAME.search(name)]
    if secret_params:
        return f"query parameter {secret_params[0]}"
    if SECRET_HOSTS.search(parts.hostname or ""):
        return f"{parts.hostname} webhook URLs are the credential"
    if any(RANDOM_SEGMENT.match(segment) for segment in parts.path.split("/")):
        return "a token-like path segment"
    return None


def _template_secrets(sinks: Any) -> Iterator[tuple[KeyPath, str]]:
    """Secrets written into a sink's template (a webhook's ``payload``)."""
    for index, sink in enumerate(sinks if isinstance(sinks, list) else []):
        template = sink.get("template") if isinstance(sink, dict) else None
        payload = template.get("payload") if isinstance(template, dict) else None
        yield from _payload_secrets(payload, ("sinks", index, "template", "payload"))


def _payload_secrets(value: Any, path: KeyPath) -> Iterator[tuple[KeyPath, str]]:
    if isinstance(value, dict):
        for key, item in value.items():
            here = (*path, key)
            if SECRET_NAME.search(str(key)) and isinstance(item, str) and _literal(item):
                yield here, f"{key} is a secret"
            else:
                yield from _payload_secrets(item, here)
    elif isinstance(value, list):
        for position, item in enumerate(value):
            yield from _payload_secrets(item, (*path, position))


def _literal(text: str) -> bool:
    """A value written out, not computed by the template."""
    return bool(text.strip()) and "{{" not in text and "{%" not in text


def _warning(document: Document, source: str, path: KeyPath, why: str) -> ConfigIssue:
    position = document.locate(path)
    key = str(path[-1])
    fix = f" or in {key}_file" if path[0] == "sinks" and len(path) == 3 else ""
    message = (
        f"{why}, written inline: secrets belong in the environment "
        f"(${{ENV_VAR}}, filled from a Secret){fix}"
    )
    return ConfigIssue(
        source,
        position.line if position else None,
        position.column if position else None,
        format_path(path),
        message,
        severity="warning",
    )
