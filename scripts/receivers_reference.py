"""Write the list of receivers, from the registry (``notifier.sinks.registry``), where it is named.

``python -m scripts.receivers_reference`` rewrites, in place:
- helm/kube-notifier/Chart.yaml's ``description``;
- docs/rules.md between ``<!-- receivers:begin ... -->`` and ``<!-- receivers:end -->``:
  the values of a sink's ``type``.
The chart's README takes ``prose()`` through scripts.chart_readme. A test fails when
any of them and the registry disagree. Prose names each type by its ``title``, in the
registry's order.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from notifier.sinks.registry import RECEIVERS

ROOT = Path(__file__).resolve().parents[1]
CHART = ROOT / "helm" / "kube-notifier" / "Chart.yaml"
RULES = ROOT / "docs" / "rules.md"
DOC_MARKERS = (
    "<!-- receivers:begin (python -m scripts.receivers_reference) -->",
    "<!-- receivers:end -->",
)
_DESCRIPTION = re.compile(r"^description: >-\n(?:  .*\n)+", re.M)


def receiver_types() -> list[str]:
    """Every sink ``type`` the config accepts, in the registry's order."""
    return [receiver.name for receiver in RECEIVERS]


def titles() -> list[str]:
    return [receiver.title for receiver in RECEIVERS]


def prose() -> str:
    """``Slack, Alertmanager, ..., webhooks or the pod log``."""
    return f"{', '.join(titles()[:-1])} or {titles()[-1]}"


def chart_description() -> str:
    text = (
        "Watches Kubernetes objects, works out what changed (a crash loop, a stuck rollout, "
        f"a Service edit) and sends notifications to {prose()}, through YAML rules you can "
        "edit while it runs."
    )
    lines = textwrap.wrap(text, width=86)
    return "description: >-\n" + "".join(f"  {line}\n" for line in lines)


def rules_section() -> str:
    """docs/rules.md's list of the values of a sink's ``type``."""
    names = [f"`{kind}`" for kind in receiver_types()]
    return f"{', '.join(names[:-1])} or {names[-1]}.\n"


def described(chart: str) -> str:
    if not _DESCRIPTION.search(chart):
        raise SystemExit("Chart.yaml has no folded 'description: >-' block")
    return _DESCRIPTION.sub(lambda _: chart_description(), chart, count=1)


def replaced(text: str, body: str) -> str:
    begin, end = (re.escape(marker) for marker in DOC_MARKERS)
    pattern = re.compile(f"{begin}\n.*?{end}", re.S)
    if not pattern.search(text):
        raise SystemExit(f"markers {DOC_MARKERS} not found")
    return pattern.sub(lambda _: f"{DOC_MARKERS[0]}\n{body}{DOC_MARKERS[1]}", text)


def main() -> None:
    CHART.write_text(described(CHART.read_text()))
    RULES.write_text(replaced(RULES.read_text(), rules_section()))


if __name__ == "__main__":
    main()
