"""The chart's RBAC for ``enrich: [changes]``: only when a rule asks; Secrets only when allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_helm import EXPECTED_GRANTS, Helm, _grants, values_file

pytestmark = pytest.mark.integration

CHANGES_RULE = """
config:
  sinks: [{name: out, type: console}]
  rules:
    - {name: crashes, match: {kinds: [Pod]}, sinks: [out], enrich: [changes]}
"""
CHANGES_GRANTS = {
    ("*", "", "pods", "get", ""), ("*", "", "pods", "list", ""),
    ("*", "", "configmaps", "get", ""), ("*", "", "configmaps", "list", ""),
    ("*", "", "events", "list", ""), ("*", "", "nodes", "get", ""),
    ("*", "apps", "replicasets", "get", ""), ("*", "apps", "replicasets", "list", ""),
    ("*", "apps", "controllerrevisions", "get", ""),
    ("*", "apps", "controllerrevisions", "list", ""),
    ("*", "apps", "deployments", "get", ""), ("*", "apps", "statefulsets", "get", ""),
    ("*", "apps", "daemonsets", "get", ""), ("*", "batch", "jobs", "get", ""),
}  # fmt: skip


@pytest.fixture
def offline_helm(tmp_path: Path) -> Helm:
    return Helm(tmp_path / "helm")


def test_rbac_for_changes_follows_the_rules_that_ask_and_secrets_only_when_allowed(
    offline_helm: Helm, tmp_path: Path
) -> None:
    values = tmp_path / "changes.yaml"
    values.write_text(CHANGES_RULE)
    secrets = tmp_path / "secrets.yaml"
    secrets.write_text("config:\n  enrichment:\n    changes: {secrets: true}\n")
    minimal = values_file("minimal-values.yaml")
    asked = _grants(offline_helm.template("kn", minimal, f"--values={values}"))
    # pods list, events list: the minimal values watch Pods already (list/watch)
    assert (
        asked - EXPECTED_GRANTS["minimal-values.yaml"]
        == CHANGES_GRANTS - (EXPECTED_GRANTS["minimal-values.yaml"])
    )
    assert not any(grant[2] == "secrets" for grant in asked)
    with_secrets = _grants(
        offline_helm.template("kn", minimal, f"--values={values}", f"--values={secrets}")
    )
    assert with_secrets - asked == {("*", "", "secrets", "get", "")}
    unasked = _grants(offline_helm.template("kn", minimal, f"--values={secrets}"))
    assert unasked == EXPECTED_GRANTS["minimal-values.yaml"]
