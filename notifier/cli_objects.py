"""What the ``rules`` commands read: a config as the service would load it, objects from YAML."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

import msgspec
import yaml

from notifier.config import ConfigError, LoadedConfig, read_config
from notifier.kinds.registry import KINDS
from notifier.objects import Kind, KubeObject
from notifier.sinks.building import sink_problems


def load_for_test(path: Path, out: TextIO, *, read_files: bool = True) -> LoadedConfig | None:
    """The config as ``run`` would start with it, sinks built; None (said in ``out``) if not."""
    try:
        loaded = read_config(path)
    except ConfigError as exc:
        print(exc, file=out)
        return None
    except OSError as exc:
        print(f"{path}: cannot read: {exc.strerror or exc}", file=out)
        return None
    problems = sink_problems(loaded.config.sinks, read_files=read_files)
    for problem in problems:
        print(f"{path}: {problem}", file=out)
    return None if problems else loaded


class TextTimes(yaml.SafeLoader):
    """YAML as kubectl writes it, with timestamps kept as the strings the API sends."""


TextTimes.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def read_object(path: Path) -> KubeObject:
    return kube_object(yaml.load(path.read_text(encoding="utf-8"), Loader=TextTimes), path)


def kube_object(data: Any, path: Path) -> KubeObject:
    """``data`` (one object as the API serves it, from ``path``) as its kind's Struct."""
    kinds = [str(kind) for kind in KINDS]
    if not isinstance(data, dict) or data.get("kind") not in kinds:
        raise ValueError(f"{path}: expected an object whose 'kind' is one of {', '.join(kinds)}")
    obj: KubeObject = msgspec.convert(data, type=KINDS[Kind(data["kind"])].struct)
    return obj
