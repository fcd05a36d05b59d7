"""Warnings that never fail a load: advice about how the file is written.

Secrets inline: a sink's ``token``, ``url`` or ``webhook_url`` written as a
literal value ends up in the ConfigMap, in ``kubectl get -o yaml`` output
and in git. They should come from the environment (``${SLACK_TOKEN}``,
filled from a Secret) or from a file (``token_file``).
"""

from __future__ import annotations

from notifier.config.documents import Document
from notifier.config.errors import ConfigIssue
from notifier.rules.errors import format_path

SECRET_KEYS = frozenset({"token", "url", "webhook_url"})


def secret_warnings(document: Document, source: str) -> list[ConfigIssue]:
    sinks = document.data.get("sinks") if isinstance(document.data, dict) else None
    if not isinstance(sinks, list):
        return []
    warnings = []
    for index, sink in enumerate(sinks):
        if not isinstance(sink, dict):
            continue
        for key in sorted(SECRET_KEYS.intersection(sink)):
            path = ("sinks", index, key)
            if sink[key] and path not in document.from_environment:
                warnings.append(_warning(document, source, path, key))
    return warnings


def _warning(document: Document, source: str, path: tuple[str | int, ...], key: str) -> ConfigIssue:
    position = document.locate(path)
    message = (
        f"{key} is written inline: secrets belong in the environment "
        f"(${{ENV_VAR}}, filled from a Secret) or in {key}_file"
    )
    return ConfigIssue(
        source,
        position.line if position else None,
        position.column if position else None,
        format_path(path),
        message,
        severity="warning",
    )
