"""Write what the kind registry knows into the docs and the chart, so neither can drift.

``python -m scripts.kinds_reference`` rewrites, in place:
- docs/transitions.md between ``<!-- kinds:begin -->`` and ``<!-- kinds:end -->``:
  per kind, where it is served, its states and signals with their fields;
- docs/rules.md between the same markers: the words rules may use, per kind;
- the chart's ``kube-notifier.kindResources`` helper (what RBAC grants per kind) and
  ``kube-notifier.ownerResources`` (what ``enrich: [owners]`` may read),
  and the enum of ``config.watch.kinds`` in values.schema.json.
A test fails when any of them and the registry disagree.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from notifier.kinds.registry import BUILT_IN, KINDS, owner_resources
from notifier.kinds.spec import KindSpec

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "transitions.md"
RULES = ROOT / "docs" / "rules.md"
HELPERS = ROOT / "helm" / "kube-notifier" / "templates" / "_helpers.tpl"
SCHEMA = ROOT / "helm" / "kube-notifier" / "values.schema.json"
DOC_MARKERS = ("<!-- kinds:begin (python -m scripts.kinds_reference) -->", "<!-- kinds:end -->")
CHART_MARKERS = ("{{/* kinds:begin (python -m scripts.kinds_reference) */}}", "{{/* kinds:end */}}")


def docs_section() -> str:
    return "\n".join(_kind_doc(spec) for spec in BUILT_IN)


def _kind_doc(spec: KindSpec[Any]) -> str:
    scope = "namespaced" if spec.api.namespaced else "cluster-scoped"
    lines = [
        f"### {spec.kind.value}",
        "",
        f"{spec.summary[0].upper()}{spec.summary[1:]}. Served as `{spec.api.plural}` in "
        f"`{spec.api.group_version}` ({scope}); `kinds: [{spec.kind.value}]`.",
        "",
    ]
    if spec.states:
        lines += ["| State | Holds while |", "|---|---|"]
        lines += [f"| `{name}` | {text} |" for name, text in spec.states.items()]
    else:
        lines.append("No states.")
    lines += ["", "| Signal | When |", "|---|---|"]
    lines += [f"| `{name}` | {text} |" for name, text in spec.all_signals.items()]
    return "\n".join(lines) + "\n"


def words_table() -> str:
    """docs/rules.md's one-line-per-kind table of the words rules may use."""
    rows = ["| kind | states | signals |", "| --- | --- | --- |"]
    for spec in BUILT_IN:
        states = ", ".join(spec.states) or "(none)"
        rows.append(f"| {spec.kind.value} | {states} | {', '.join(spec.all_signals)} |")
    return "\n".join(rows) + "\n"


def chart_helper() -> str:
    resources = {
        spec.kind.value: {
            "group": spec.api.group,
            "resource": spec.api.plural,
            "namespaced": spec.api.namespaced,
        }
        for spec in BUILT_IN
    }
    owners: dict[str, list[str]] = {}
    for api in owner_resources(kinds=KINDS):
        owners.setdefault(api.group, []).append(api.plural)
    return (
        "{{/* Where each kind is served: RBAC grants list/watch on exactly these. */}}\n"
        '{{- define "kube-notifier.kindResources" -}}\n'
        f"{json.dumps(resources, separators=(',', ':'))}\n"
        "{{- end }}\n"
        "{{/* What an owner chain may read (enrich: [owners]): RBAC grants get on these. */}}\n"
        '{{- define "kube-notifier.ownerResources" -}}\n'
        f"{json.dumps(owners, separators=(',', ':'))}\n"
        "{{- end }}\n"
    )


def kind_names() -> list[str]:
    return [spec.kind.value for spec in BUILT_IN]


def replaced(text: str, markers: tuple[str, str], body: str) -> str:
    begin, end = (re.escape(marker) for marker in markers)
    pattern = re.compile(f"{begin}\n.*?{end}", re.S)
    if not pattern.search(text):
        raise SystemExit(f"markers {markers} not found")
    return pattern.sub(lambda _: f"{markers[0]}\n{body}{markers[1]}", text)


def schema_kinds(schema: dict[str, Any]) -> dict[str, Any]:
    """The ``items`` of ``config.watch.kinds`` in the chart's schema."""
    watch = schema["properties"]["config"]["properties"]["watch"]
    items: dict[str, Any] = watch["properties"]["kinds"]["items"]
    return items


def main() -> None:
    DOCS.write_text(replaced(DOCS.read_text(), DOC_MARKERS, docs_section()))
    RULES.write_text(replaced(RULES.read_text(), DOC_MARKERS, words_table()))
    HELPERS.write_text(replaced(HELPERS.read_text(), CHART_MARKERS, chart_helper()))
    schema = json.loads(SCHEMA.read_text())
    schema_kinds(schema)["enum"] = kind_names()
    SCHEMA.write_text(json.dumps(schema, indent=2) + "\n")


if __name__ == "__main__":
    main()
