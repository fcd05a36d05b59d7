"""docs/metrics.md lists exactly the metrics the code registers: names, types and labels."""

from __future__ import annotations

import re
from pathlib import Path

from scripts.metrics_catalogue import rows

DOC = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"


def documented() -> set[tuple[str, str, str]]:
    pattern = re.compile(r"^\| `(kube_notifier_\w+)` \| (\w+) \| ([\w, ]*?) ?\|", re.M)
    return set(pattern.findall(DOC.read_text()))


def test_catalogue_matches_the_code() -> None:
    registered = {(name, kind, labels) for name, kind, labels, _ in rows()}
    assert documented() == registered, (
        "regenerate: python -m scripts.metrics_catalogue > docs/metrics.md"
    )


def test_every_name_is_prefixed_and_suffixed_by_convention() -> None:
    for name, kind, _, _ in rows():
        assert name.startswith("kube_notifier_")
        if kind == "counter":
            assert name.endswith("_total")
        if "seconds" in name:
            assert name.endswith(("_seconds", "_seconds_total"))
