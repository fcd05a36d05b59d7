"""The chart does what its values say (issue #39): `helm template` of each.

alertmanager.urls adds its sink whether the rules come from `config` or from
`configFile` (the README's install path), and fails the render with a reason where
it cannot (existingConfigMap, a second sink of that name); an Alertmanager sink with
the placeholder cluster_name fails too, since a fleet would share one `cluster`
label. page.writes without silences (or without the page) warns in the install
notes. The default image is the one the release workflow publishes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.controlplane import assets
from tests.controlplane.cluster import ControlPlane
from tests.integration.test_helm import (
    CHART,
    RELEASE,
    REPO,
    SECRET_ENV,
    Helm,
    container,
    rendered_config,
)

pytestmark = pytest.mark.integration
EXAMPLE = REPO / "config.example.yaml"
URLS = "--set=alertmanager.urls[0]=http://alertmanager-0.monitoring:9093"
CLUSTER = "--set=config.cluster_name=eu-west-1"


@pytest.fixture
def helm(tmp_path: Path) -> Helm:
    return Helm(tmp_path / "helm")


def _config(helm: Helm, *values: str) -> dict[str, Any]:
    config: dict[str, Any] = yaml.safe_load(rendered_config(helm.template("kn", *values)))
    return config


def _sending_rules(config: dict[str, Any]) -> list[dict[str, Any]]:
    return [rule for rule in config["rules"] if rule.get("sinks")]


def _rules_check(text: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "rendered.yaml"
    path.write_text(text)
    return subprocess.run(
        [sys.executable, "-m", "notifier", "rules", "check", "--no-files", str(path)],
        env={**os.environ, **SECRET_ENV}, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def _fails(helm: Helm, *values: str) -> str:
    done = helm.run(
        "template", RELEASE, str(CHART), f"--kube-version={assets.K8S_VERSION}", *values,
        check=False,
    )  # fmt: skip
    assert done.returncode != 0, "the render was expected to fail"
    return done.stderr


def test_alertmanager_urls_reach_the_config_given_as_values(helm: Helm) -> None:
    config = _config(helm, URLS, CLUSTER)
    [sink] = [sink for sink in config["sinks"] if sink["name"] == "alertmanager"]
    assert sink == {
        "name": "alertmanager", "type": "alertmanager",
        "urls": ["http://alertmanager-0.monitoring:9093"],
    }  # fmt: skip
    assert _sending_rules(config)
    assert all("alertmanager" in rule["sinks"] for rule in _sending_rules(config))


def test_alertmanager_urls_reach_the_readmes_config_file(helm: Helm, tmp_path: Path) -> None:
    """README: --set alertmanager.urls[0]=... --set-file configFile=config.example.yaml."""
    manifests = helm.template(
        "kn", URLS, f"--set-file=configFile={EXAMPLE}", "--set=rbac.namespaceLabels=true"
    )
    text = rendered_config(manifests)
    config = yaml.safe_load(text)
    assert config["sinks"][-1]["urls"] == ["http://alertmanager-0.monitoring:9093"]
    example = yaml.safe_load(EXAMPLE.read_text())
    assert [s["name"] for s in config["sinks"]] == [
        *(s["name"] for s in example["sinks"]), "alertmanager"
    ]  # fmt: skip
    for rule, was in zip(config["rules"], example["rules"], strict=True):
        wanted = [*was["sinks"], "alertmanager"] if was.get("sinks") else was.get("sinks")
        assert rule.get("sinks") == wanted, rule["name"]
    assert '"token": "${KN_SLACK_TOKEN:-}"' in text  # still quoted: an empty token is ""
    done = _rules_check(text, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_rules_that_use_the_default_sinks_send_to_alertmanager_too(helm: Helm) -> None:
    rules = (
        '--set-json=config.defaults={"sinks": ["console"]}',
        '--set-json=config.rules=[{"name": "all", "match": {"kinds": ["Pod"]}}]',
    )
    config = _config(helm, URLS, CLUSTER, *rules)
    assert config["defaults"]["sinks"] == ["console", "alertmanager"]
    assert "sinks" not in config["rules"][0]


def test_without_urls_the_config_file_is_copied_as_written(helm: Helm) -> None:
    manifests = helm.template(
        "kn", f"--set-file=configFile={EXAMPLE}", "--set=rbac.namespaceLabels=true"
    )
    assert rendered_config(manifests).strip() == EXAMPLE.read_text().strip()


@pytest.mark.parametrize(
    ("values", "error"),
    [
        ([URLS], 'cluster_name (it is "my-cluster")'),
        ([URLS, "--set=config.cluster_name="], 'cluster_name (it is "")'),
        ([URLS, "--set=configFile=rules: []"], 'cluster_name (it is "")'),
        (['--set-json=config.sinks=[{"name": "hub", "type": "alertmanager", "urls": ["http://a"]}]'],
         "every cluster of a fleet would send the same cluster label"),
        ([URLS, CLUSTER, "--set=existingConfigMap=my-rules"], "cannot reach existingConfigMap"),
        ([URLS, CLUSTER, '--set-json=config.sinks=[{"name": "alertmanager", "type": "console"}]'],
         "the config has one already"),
    ],
)  # fmt: skip
def test_alertmanager_values_that_cannot_work_fail_with_a_reason(
    helm: Helm, values: list[str], error: str
) -> None:
    assert error in _fails(helm, *values)


def _notes(helm: Helm, *values: str) -> str:
    """The install notes of a dry run: nothing is created, the API server is only asked
    its version."""
    done = helm.run("install", RELEASE, str(CHART), "--dry-run=client", "--namespace=kn", *values)
    return done.stdout.split("NOTES:", 1)[1]


def test_page_writes_without_silences_or_the_page_warn_in_the_notes(
    control_plane: ControlPlane, tmp_path: Path
) -> None:
    helm = Helm(tmp_path / "helm", control_plane.kubeconfig)
    assert "WARNING" not in _notes(helm, "--set=page.writes=true")
    no_silences = _notes(helm, "--set=page.writes=true", "--set=silences.enabled=false")
    assert "WARNING: page.writes is on but silences.enabled is off" in no_silences
    no_page = _notes(helm, "--set=page.writes=true", "--set=page.enabled=false")
    assert "WARNING: page.writes is on but page.enabled is off" in no_page


def test_the_default_image_is_the_one_the_release_publishes(helm: Helm) -> None:
    release = yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text())
    version = yaml.safe_load((CHART / "Chart.yaml").read_text())["appVersion"]
    assert container(helm.template("kn"))["image"] == f"{release['env']['IMAGE']}:{version}"
