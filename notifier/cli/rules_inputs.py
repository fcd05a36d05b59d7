"""What ``rules test`` and ``rules timeline`` read: the config with stand-ins, and objects.

``load_for_test`` loads the config as ``rules check`` does, except that an
unset ``${VAR}`` stands as written (the test sends nothing). ``read_object``
reads ``kubectl get -o yaml`` output: one object, or a List of one; every
problem names the file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, TextIO

import msgspec
import yaml

from notifier.config import ConfigError, LoadedConfig, read_config_text
from notifier.config.loading import read_text
from notifier.kinds.registry import Kinds
from notifier.objects import Kind, KubeObject

_BARE_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class TextTimes(yaml.SafeLoader):
    """YAML as kubectl writes it, with timestamps kept as the strings the API sends."""


TextTimes.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def read_object(path: Path, *, known: Kinds) -> KubeObject:
    """The one object in ``path``: ``kubectl get -o yaml`` output, a List of one included."""
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=TextTimes)
    except yaml.YAMLError as exc:
        raise ValueError(_yaml_problem(path, exc)) from None
    if isinstance(data, dict) and data.get("kind") == "List":
        data = _only_item(path, data.get("items"))
    return kube_object(data, path, known=known)


def kube_object(data: Any, path: Path, *, known: Kinds) -> KubeObject:
    """``data`` (one object as the API serves it, read from ``path``) as its kind's Struct."""
    kinds = [str(kind) for kind in known]
    if not isinstance(data, dict) or data.get("kind") not in kinds:
        raise ValueError(f"{path}: expected an object whose 'kind' is one of {', '.join(kinds)}")
    try:
        obj: KubeObject = msgspec.convert(data, type=known[Kind(data["kind"])].struct)
    except msgspec.ValidationError as exc:
        raise ValueError(f"{path}: not a {data['kind']} as the API writes it: {exc}") from None
    return obj


def _yaml_problem(path: Path, exc: yaml.YAMLError) -> str:
    """One line: the file, where, and what the parser says."""
    mark = getattr(exc, "problem_mark", None)
    where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
    return f"{where}: not YAML: {getattr(exc, 'problem', None) or exc}"


def _only_item(path: Path, items: Any) -> Any:
    if not isinstance(items, list) or len(items) != 1:
        count = len(items) if isinstance(items, list) else 0
        raise ValueError(
            f"{path}: a List of {count} objects; rules test takes one "
            "(kubectl get KIND NAME -o yaml, or keep one item)"
        )
    return items[0]


def load_for_test(path: Path, out: TextIO) -> LoadedConfig | None:
    """The config with a stand-in for each unset ``${VAR}``: a test sends nothing.

    The stand-in is the reference as written, so a message shows ``${SLACK_TOKEN}``
    where the token would go. Sinks are not built (their secrets may be unset).
    """
    try:
        text = read_text(path)
        unset = sorted(set(_BARE_REFERENCE.findall(text)) - set(os.environ))
        environ = {**os.environ, **{name: f"${{{name}}}" for name in unset}}
        loaded = read_config_text(text, str(path), environ=environ)
    except ConfigError as exc:
        print(exc, file=out)
        return None
    except OSError as exc:
        print(f"{path}: cannot read: {exc.strerror or exc}", file=out)
        return None
    if unset:
        names = ", ".join(f"${{{name}}}" for name in unset)
        print(f"{path}: not set here, so shown as written (nothing is sent): {names}", file=out)
    return loaded
