"""The chart's extension points (issue #27): each new value rendered by `helm template`.

kube-state-metrics' chart offers these; ours now does too: extra volumes and mounts,
extra RBAC rules, global pull secrets, the ServiceAccount's token default, the
revision history, a namespace override, extra manifests, init containers and
sidecars, and the ServiceMonitor's namespace. ci/extras-values.yaml holds them all
and goes through test_helm.py's lint, dry run and RBAC checks like every scenario.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.integration.test_helm import (
    CHART,
    FULLNAME,
    Helm,
    Manifest,
    container,
    find,
    values_file,
)

pytestmark = pytest.mark.integration
EXTRAS = values_file("extras-values.yaml")


@pytest.fixture
def helm(tmp_path: Path) -> Helm:
    return Helm(tmp_path / "helm")


def pod_spec(manifests: list[Manifest]) -> Manifest:
    spec: Manifest = find(manifests, "Deployment")["spec"]["template"]["spec"]
    return spec


def test_extra_volumes_reach_the_pod_and_the_container(helm: Helm) -> None:
    manifests = helm.template("kn", EXTRAS)
    volumes = {v["name"]: v for v in pod_spec(manifests)["volumes"]}
    assert volumes["corp-ca"]["configMap"] == {"name": "corp-ca", "optional": True}
    mounts = {m["name"]: m for m in container(manifests)["volumeMounts"]}
    assert mounts["corp-ca"] == {
        "name": "corp-ca", "mountPath": "/etc/kube-notifier-ca", "readOnly": True
    }  # fmt: skip


def test_init_containers_and_sidecars_are_templated(helm: Helm) -> None:
    spec = pod_spec(helm.template("kn", EXTRAS))
    assert [c["name"] for c in spec["initContainers"]] == ["wait-for-ca"]
    names = [c["name"] for c in spec["containers"]]
    assert names == ["kube-notifier", "release-name"]
    assert spec["containers"][1]["command"][-1] == "echo kn; sleep 3600"


def test_pull_secrets_merge_global_and_chart_once_each(helm: Helm) -> None:
    spec = pod_spec(helm.template("kn", EXTRAS, '--set-json=imagePullSecrets=["umbrella-regcred"]'))
    assert spec["imagePullSecrets"] == [{"name": "umbrella-regcred"}]
    spec = pod_spec(helm.template("kn", EXTRAS))
    assert spec["imagePullSecrets"] == [{"name": "umbrella-regcred"}, {"name": "chart-regcred"}]
    assert "imagePullSecrets" not in pod_spec(helm.template("kn"))


def test_extra_rbac_rules_join_the_cluster_role_or_each_watch_role(helm: Helm) -> None:
    widgets = {"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["list", "watch"]}
    cluster = helm.template("kn", EXTRAS)
    assert widgets in find(cluster, "ClusterRole")["rules"]
    namespaced = helm.template("kn", EXTRAS, '--set-json=watchNamespaces=["team-a"]')
    assert widgets in find(namespaced, "Role", f"{FULLNAME}-watch")["rules"]


def test_service_account_token_default_and_revision_history(helm: Helm) -> None:
    defaults = helm.template("kn")
    assert find(defaults, "ServiceAccount")["automountServiceAccountToken"] is False
    assert find(defaults, "Deployment")["spec"]["revisionHistoryLimit"] == 5
    changed = helm.template(
        "kn",
        "--set=serviceAccount.automountServiceAccountToken=true",
        "--set=revisionHistoryLimit=1",
    )
    assert find(changed, "ServiceAccount")["automountServiceAccountToken"] is True
    assert find(changed, "Deployment")["spec"]["revisionHistoryLimit"] == 1
    assert pod_spec(changed)["automountServiceAccountToken"] is True  # the pod asks anyway


def test_extra_manifests_as_objects_and_strings(helm: Helm) -> None:
    manifests = helm.template("kn", EXTRAS)
    assert find(manifests, "ConfigMap", "kn-extra")["data"] == {"note": "made by extraManifests"}
    assert find(manifests, "ConfigMap", "kn-extra-text")["data"]["note"] == "a string, templated"


def test_namespace_override_moves_every_namespaced_object(helm: Helm) -> None:
    manifests = helm.template(
        "kn", "--set=namespaceOverride=tools", "--set=leaderElection.enabled=true"
    )
    for manifest in manifests:
        if manifest["kind"] in ("ClusterRole", "ClusterRoleBinding"):
            assert manifest["metadata"]["name"] == f"{FULLNAME}-tools"
        else:
            assert manifest["metadata"]["namespace"] == "tools", manifest["kind"]
    args = container(manifests)["args"]
    assert f"--silences=tools/{FULLNAME}-silences" in args
    assert "--lease-namespace=tools" in args
    subjects = find(manifests, "ClusterRoleBinding")["subjects"]
    assert subjects[0]["namespace"] == "tools"


def test_service_monitor_namespace(helm: Helm) -> None:
    manifests = helm.template(
        "kn", "--set=serviceMonitor.enabled=true", "--set=serviceMonitor.namespace=monitoring"
    )
    monitor = find(manifests, "ServiceMonitor")
    assert monitor["metadata"]["namespace"] == "monitoring"
    assert monitor["spec"]["namespaceSelector"] == {"matchNames": ["kn"]}


def test_the_extras_scenario_is_documented_in_values() -> None:
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    scenario = yaml.safe_load((CHART / "ci" / "extras-values.yaml").read_text())
    assert set(scenario) <= set(values)
