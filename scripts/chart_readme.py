"""Write helm/kube-notifier/README.md from values.yaml and its comments, so they cannot drift.

``python -m scripts.chart_readme`` rewrites the README; a test checks it is current
and that every value has a comment. A key's description is the comment block right
above it (a ``-- `` prefix is dropped); a mapping is descended into unless it is a
Kubernetes object or the rules (``OPAQUE``), which get one row with their default.
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from scripts import receivers_reference

ROOT = Path(__file__).resolve().parents[1]
CHART = ROOT / "helm" / "kube-notifier"
README = CHART / "README.md"
OPAQUE = frozenset(
    {
        "config",
        "resources",
        "podSecurityContext",
        "securityContext",
        "livenessProbe",
        "readinessProbe",
        "startupProbe",
        "grafanaDashboard.labels",
    }
)
LONGEST_DEFAULT = 60
_KEY = re.compile(r"^(?P<indent> *)(?P<key>[A-Za-z_][\w.-]*):(?P<rest>.*)$")


@dataclass(frozen=True)
class Value:
    path: str
    default: Any
    description: str


def values(text: str) -> list[Value]:
    """Every documented row of ``text`` (values.yaml), in file order."""
    data = yaml.safe_load(text)
    found = []
    for path, comment in _commented_keys(text):
        value = _lookup(data, path)
        if _descended(path, value):
            continue
        found.append(Value(path, value, comment))
    return found


def undocumented(text: str) -> list[str]:
    return [value.path for value in values(text) if not value.description]


def _descended(path: str, value: Any) -> bool:
    return isinstance(value, dict) and bool(value) and path not in OPAQUE


def _commented_keys(text: str) -> Iterator[tuple[str, str]]:
    """(dotted path, comment above it) for every key outside an opaque block."""
    stack: list[tuple[int, str]] = []
    comment: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            comment.append(stripped.lstrip("#").strip().removeprefix("-- "))
            continue
        match = _KEY.match(line)
        if not stripped or stripped.startswith("-") or match is None:
            comment = []
            continue
        indent = len(match["indent"])
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1] if stack else ""
        if parent in OPAQUE or any(p in OPAQUE for _, p in stack):
            comment = []
            continue
        path = f"{parent}.{match['key']}" if parent else match["key"]
        stack.append((indent, path))
        yield path, " ".join(comment)
        comment = []


def _lookup(data: Any, path: str) -> Any:
    for part in path.split("."):
        data = data[part]
    return data


def table(rows: list[Value]) -> str:
    lines = ["| key | default | description |", "| --- | --- | --- |"]
    for row in rows:
        default = json.dumps(row.default, separators=(", ", ": "))
        if len(default) > LONGEST_DEFAULT:  # a long default is read in values.yaml
            default = "see values.yaml"
        description = row.description.replace("|", "\\|").replace("<", "&lt;")
        lines.append(f"| `{row.path}` | `{default}` | {description} |")
    return "\n".join(lines) + "\n"


HEAD = """\
# kube-notifier Helm chart

<!-- Generated from values.yaml by `python -m scripts.chart_readme`; edit those, not this. -->

{intro}

## Install

No image or chart is published yet: build the image from the repository under the
name the release will publish, load it into the cluster, then install the chart
from the checkout.

```sh
docker build -t {image}:{version} .      # the chart's default image
kind load docker-image {image}:{version}   # or minikube image load
kubectl create namespace kube-notifier
kubectl -n kube-notifier create secret generic kube-notifier \\
  --from-literal=KN_SLACK_TOKEN=xoxb-... --from-literal=KN_SLACK_CHANNEL='#alerts'
helm install kube-notifier ./helm/kube-notifier -n kube-notifier \\
  --set secret.existingSecret=kube-notifier --set-file configFile=my-rules.yaml
```

Check the rules before they go live: `kube-notifier rules check --no-files my-rules.yaml`.
The install notes print the first commands to run, including the name of the
silences ConfigMap (`<fullname>-silences`). Step by step, from nothing to a first
Slack message: [docs/install.md](../../docs/install.md).

## Upgrade

```sh
helm upgrade kube-notifier ./helm/kube-notifier -n kube-notifier --reuse-values \\
  --set-file configFile=my-rules.yaml
```

A change of the rules alone reloads them in about a second without a restart; a
change of the Secret, the image or the pod's settings rolls the pods (one at a
time with leader election). [docs/helm.md](../../docs/helm.md) lists what restarts.

## Uninstall

```sh
helm uninstall kube-notifier -n kube-notifier
kubectl -n kube-notifier delete pvc -l app.kubernetes.io/instance=kube-notifier   # with persistence
```

The silences ConfigMap goes with the release; a Secret you made yourself stays.

## Values

Every key is checked by `values.schema.json` (an unknown key is an error).
The RBAC the chart grants for each value, replicas and state: [docs/helm.md](../../docs/helm.md).
The rules format (`config`, `configFile`): [docs/rules.md](../../docs/rules.md).

"""

TAIL = """
Scenarios the tests install on a real control plane are in `ci/`.
"""


INTRO = (
    "[kube-notifier](../../README.md) watches Kubernetes objects (Pods, Deployments and "
    "Services by default; Jobs, CronJobs, StatefulSets, DaemonSets, Nodes, "
    "PersistentVolumeClaims, HorizontalPodAutoscalers, Events and custom resources when "
    "`config.watch` lists them, RBAC following the list), works out what changed (a crash "
    "loop, a stuck rollout, a Service edit) and sends notifications to {receivers} "
    "through YAML rules that reload while it runs."
)


def intro() -> str:
    """The first paragraph; the receivers come from the sink types (scripts.receivers_reference)."""
    return textwrap.fill(INTRO.replace("{receivers}", receivers_reference.prose()), width=84)


def render() -> str:
    text = (CHART / "values.yaml").read_text()
    version = yaml.safe_load((CHART / "Chart.yaml").read_text())["appVersion"]
    image = yaml.safe_load(text)["image"]
    head = (
        HEAD.replace("{version}", str(version))
        .replace("{image}", f"{image['registry']}/{image['repository']}")
        .replace("{intro}", intro())
    )
    return head + table(values(text)) + TAIL


if __name__ == "__main__":
    README.write_text(render())
    sys.stdout.write(f"wrote {README.relative_to(ROOT)}\n")
