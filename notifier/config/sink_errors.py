"""A sink that cannot be built, said as a config error: the count line, then file:line:column.

The config validates, but a sink's files are only read when it is built (a
``token_file`` that is missing, a CA bundle that does not load, a
``resolved_url`` on another host): ``rules check``, ``sinks test``, ``run`` and
a reload build them. The error names the key it is about (``SinkBuildError.key``);
the file (or the text a ConfigMap gave) is parsed again to find that key's line,
only when something failed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from notifier.config.documents import parse_document
from notifier.config.errors import ConfigError, ConfigIssue
from notifier.config.loading import read_text
from notifier.config.model import Config
from notifier.rules.config.problems import KeyPath, format_path
from notifier.sinks.secrets import SinkBuildError


def sink_build_error(
    path: Path | str,
    config: Config,
    failures: Sequence[tuple[str, SinkBuildError]],
    *,
    text: str | None = None,
) -> ConfigError:
    """``failures``: (sink name, what went wrong), as ``sink_problems`` lists them; ``text``:
    the document as loaded (a ConfigMap's), when ``path`` names no file to read it from."""
    where = {sink.name: index for index, sink in enumerate(config.sinks)}
    paths = [_key_path(where.get(name), err.key) for name, err in failures]
    try:
        document = parse_document(read_text(Path(path)) if text is None else text, os.environ)
    except (OSError, ConfigError):  # changed or gone since it loaded: the key paths still say
        document = None
    issues = []
    for key_path, (_, err) in zip(paths, failures, strict=True):
        position = document.locate(key_path, prefer_key=True) if document else None
        line, column = (position.line, position.column) if position else (None, None)
        issues.append(ConfigIssue(str(path), line, column, format_path(key_path), str(err)))
    return ConfigError(issues)


def _key_path(index: int | None, key: str) -> KeyPath:
    if index is None:
        return ("sinks",)
    return ("sinks", index, key) if key else ("sinks", index)
