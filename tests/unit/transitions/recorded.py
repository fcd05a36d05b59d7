"""Recorded watch streams: the YAML fixtures, decoded the way the informers decode them.

Each file in ``fixtures/`` is a multi-document YAML stream of one object as
the API server sent it; document N is version N.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import msgspec
import yaml

from notifier.kinds.deployment import Deployment
from notifier.kinds.pod import Pod
from notifier.kinds.service import Service

FIXTURES = Path(__file__).parent / "fixtures"

_Object = TypeVar("_Object", Pod, Deployment, Service)


@cache
def documents(name: str) -> tuple[dict[str, Any], ...]:
    with (FIXTURES / f"{name}.yaml").open(encoding="utf-8") as stream:
        return tuple(yaml.safe_load_all(stream))


def versions(name: str, kind: type[_Object]) -> list[_Object]:
    return [msgspec.convert(document, type=kind) for document in documents(name)]


def pods(name: str) -> list[Pod]:
    return versions(name, Pod)


def deployments(name: str) -> list[Deployment]:
    return versions(name, Deployment)


def services(name: str) -> list[Service]:
    return versions(name, Service)
