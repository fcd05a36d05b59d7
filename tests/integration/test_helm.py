"""The Helm chart (helm/kube-notifier) rendered, linted and installed on the real control plane.

What is checked: ``helm lint --strict`` and the values schema; every ci/*-values.yaml
scenario rendered and accepted by the API server (server-side dry run); the config
the chart writes passes ``kube-notifier rules check`` and the flags it passes parse;
the RBAC rules are exactly what each scenario enables; the pod template is admitted
under the ``restricted`` Pod Security Standard (and a non-compliant one is not); a
token of the chart's ServiceAccount can do what kube-notifier needs and nothing more,
and the service runs with it; an upgrade that changes only the rules keeps the pod,
one that changes the image replaces it.

helm comes from the control-plane asset cache. Every test cleans up the releases and
namespaces it creates.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from notifier.cli import build_parser
from notifier.cli.run import options_from
from notifier.service.options import RunOptions
from tests.controlplane import assets
from tests.controlplane.cluster import ControlPlane
from tests.integration.service import ServiceProcess

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
CHART = REPO / "helm" / "kube-notifier"
SCENARIOS = sorted(path.name for path in (CHART / "ci").glob("*-values.yaml"))
RELEASE = "kn"
FULLNAME = "kn-kube-notifier"
RULES_CM = f"{FULLNAME}-rules"
# Values for the secrets the scenarios read, so their configs load as in a cluster.
SECRET_ENV = {"KN_SLACK_TOKEN": "xoxb-test", "KN_WEBHOOK_URL": "https://hooks.invalid/kube"}
PSA_LABELS = {
    "pod-security.kubernetes.io/enforce": "restricted",
    "pod-security.kubernetes.io/enforce-version": "latest",
    "pod-security.kubernetes.io/warn": "restricted",
}

Manifest = dict[str, Any]


# -- helm and kubectl -------------------------------------------------------------------


class Helm:
    """The helm binary with its own home and, for releases, the control plane's kubeconfig."""

    def __init__(self, home: Path, kubeconfig: Path | None = None) -> None:
        self.binary = str(assets.require("helm"))
        self.kubeconfig = kubeconfig
        self.env = {
            **os.environ,
            "HELM_CACHE_HOME": str(home / "cache"),
            "HELM_CONFIG_HOME": str(home / "config"),
            "HELM_DATA_HOME": str(home / "data"),
        }

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        argv = [self.binary, *args]
        if self.kubeconfig is not None:
            argv.append(f"--kubeconfig={self.kubeconfig}")
        done = subprocess.run(
            argv, env=self.env, capture_output=True, text=True, timeout=90, check=False
        )
        if check and done.returncode != 0:
            raise AssertionError(f"helm {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
        return done

    def template(self, namespace: str, *values: str) -> list[Manifest]:
        """The rendered manifests. --kube-version: no cluster is asked."""
        out = self.run(
            "template", RELEASE, str(CHART), f"--namespace={namespace}",
            f"--kube-version={assets.K8S_VERSION}", *values,
        ).stdout  # fmt: skip
        return [doc for doc in yaml.safe_load_all(out) if doc]


def values_file(name: str) -> str:
    return f"--values={CHART / 'ci' / name}"


def find(manifests: list[Manifest], kind: str, name: str | None = None) -> Manifest:
    matches = [m for m in manifests if m["kind"] == kind and name in (None, m["metadata"]["name"])]
    assert len(matches) == 1, f"{len(matches)} {kind} named {name}"
    return matches[0]


def rendered_config(manifests: list[Manifest]) -> str:
    text: str = find(manifests, "ConfigMap", RULES_CM)["data"]["config.yaml"]
    return text


def container(manifests: list[Manifest]) -> Manifest:
    spec = find(manifests, "Deployment")["spec"]["template"]["spec"]
    containers: list[Manifest] = spec["containers"]
    return containers[0]


def kubectl(kubeconfig: Path, *args: str, input_text: str | None = None) -> tuple[int, str]:
    """kubectl with any kubeconfig; (exit code, stdout + stderr)."""
    done = subprocess.run(
        [str(assets.require("kubectl")), f"--kubeconfig={kubeconfig}", *args],
        input=input_text, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    return done.returncode, done.stdout + done.stderr


def wait_for(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.25)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


@dataclass
class Sandbox:
    """Namespaces and releases a test makes; all removed at teardown."""

    plane: ControlPlane
    helm: Helm
    namespaces: list[str] = field(default_factory=list)
    releases: list[tuple[str, str]] = field(default_factory=list)

    def namespace(self, prefix: str, labels: dict[str, str] | None = None) -> str:
        name = f"{prefix}-{uuid.uuid4().hex[:6]}"
        self.ensure_namespace(name, labels)
        return name

    def ensure_namespace(self, name: str, labels: dict[str, str] | None = None) -> None:
        manifest = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
        if labels:
            manifest["metadata"]["labels"] = labels
        if kubectl(self.plane.kubeconfig, "get", "namespace", name)[0] != 0:
            self.namespaces.append(name)
        self.plane.kubectl_apply(manifest)

    def install(
        self, namespace: str, *values: str, release: str = RELEASE
    ) -> subprocess.CompletedProcess[str]:
        """helm install; its stdout holds the NOTES, its stderr the API server's warnings."""
        self.releases.append((release, namespace))
        return self.helm.run(
            "install", release, str(CHART), f"--namespace={namespace}", "--timeout=60s", *values
        )

    def upgrade(self, namespace: str, *values: str) -> None:
        self.helm.run(
            "upgrade", RELEASE, str(CHART), f"--namespace={namespace}", "--timeout=60s", *values
        )

    def cleanup(self) -> None:
        for release, namespace in reversed(self.releases):
            self.helm.run("uninstall", release, f"--namespace={namespace}", check=False)
        for name in self.namespaces:
            self.plane.kubectl("delete", "namespace", name, "--wait=false", check=False)


@pytest.fixture
def offline_helm(tmp_path: Path) -> Helm:
    return Helm(tmp_path / "helm")


@pytest.fixture
def sandbox(control_plane: ControlPlane, tmp_path: Path) -> Iterator[Sandbox]:
    box = Sandbox(control_plane, Helm(tmp_path / "helm", control_plane.kubeconfig))
    try:
        yield box
    finally:
        box.cleanup()


@pytest.fixture
def full_sandbox(full_cluster: ControlPlane, tmp_path: Path) -> Iterator[Sandbox]:
    box = Sandbox(full_cluster, Helm(tmp_path / "helm", full_cluster.kubeconfig))
    try:
        yield box
    finally:
        box.cleanup()


# -- lint, schema, rendering ------------------------------------------------------------


@pytest.mark.parametrize("scenario", ["<defaults>", *SCENARIOS])
def test_lint_strict(offline_helm: Helm, scenario: str) -> None:
    values = [] if scenario == "<defaults>" else [values_file(scenario)]
    done = offline_helm.run(
        "lint", "--strict", f"--kube-version={assets.K8S_VERSION}", str(CHART), *values
    )
    assert "0 chart(s) failed" in done.stdout


def test_scenarios_cover_the_issue() -> None:
    assert {
        "minimal-values.yaml",
        "slack-webhook-values.yaml",
        "ha-values.yaml",
        "namespaced-values.yaml",
    } <= set(SCENARIOS)


@pytest.mark.parametrize(
    ("values", "error"),
    [
        (["--set=colour=blue"], "additional properties 'colour' not allowed"),
        (["--set=replicaCount=-1"], "minimum"),
        (["--set=logLevel=loud"], "logLevel"),
        (["--set=secret.data.bad-key=x", "--set=secret.create=true"], "bad-key"),
        (["--set=extraArgs[0]=oops"], "extraArgs"),
    ],
)
def test_schema_rejects_bad_values(offline_helm: Helm, values: list[str], error: str) -> None:
    done = offline_helm.run(
        "template", RELEASE, str(CHART), f"--kube-version={assets.K8S_VERSION}", *values,
        check=False,
    )  # fmt: skip
    assert done.returncode != 0 and error in done.stderr, done.stderr


@pytest.mark.parametrize(
    ("values", "error"),
    [
        (["--set=persistence.enabled=true", "--set=replicaCount=2"], "needs replicaCount 1"),
        ([values_file("ha-values.yaml"), "--set=rbac.namespaceLabels=false"], "namespace_selector"),
        (["--set-json=config.watch.namespaces=[\"a\"]"], "set watchNamespaces"),
        (["--set=secret.create=true", "--set=secret.existingSecret=s", "--set=secret.data.A=b"],
         "not both"),
        (["--set=configFile=watch: {namespaces: [a]}", "--set-json=watchNamespaces=[\"b\"]"],
         "same namespaces"),
    ],
)  # fmt: skip
def test_settings_that_cannot_work_fail_with_a_reason(
    offline_helm: Helm, values: list[str], error: str
) -> None:
    done = offline_helm.run(
        "template", RELEASE, str(CHART), f"--kube-version={assets.K8S_VERSION}", *values,
        check=False,
    )  # fmt: skip
    assert done.returncode != 0 and error in done.stderr, done.stderr


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_rendered_config_passes_rules_check(
    offline_helm: Helm, scenario: str, tmp_path: Path
) -> None:
    manifests = offline_helm.template("kn", values_file(scenario))
    config = tmp_path / "config.yaml"
    config.write_text(rendered_config(manifests))
    done = subprocess.run(
        [sys.executable, "-m", "notifier", "rules", "check", "--no-files", str(config)],
        env={**os.environ, **SECRET_ENV}, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    watch = yaml.safe_load(config.read_text()).get("watch", {})
    wanted = yaml.safe_load((CHART / "ci" / scenario).read_text()).get("watchNamespaces", [])
    assert watch.get("namespaces", []) == wanted


def test_config_file_is_copied_as_written(offline_helm: Helm, tmp_path: Path) -> None:
    """configFile keeps quotes: "${KN_SLACK_TOKEN:-}" must stay a string, not become null."""
    text = (REPO / "config.example.yaml").read_text()
    manifests = offline_helm.template(
        "kn",
        f"--set-file=configFile={REPO / 'config.example.yaml'}",
        "--set=rbac.namespaceLabels=true",  # the example has a namespace_selector rule
    )
    assert rendered_config(manifests).strip() == text.strip()


def _run_options(manifests: list[Manifest]) -> RunOptions:
    args = container(manifests)["args"]
    return options_from(build_parser().parse_args(["run", *args]))


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_flags_the_chart_passes_are_the_service_flags(offline_helm: Helm, scenario: str) -> None:
    manifests = offline_helm.template("kn", values_file(scenario))
    options = _run_options(manifests)
    assert str(options.config) == "/etc/kube-notifier/config.yaml"
    assert options.state_path == "/var/lib/kube-notifier/state.db"
    assert (options.listen_host, options.listen_port) == ("0.0.0.0", 8080)
    assert options.log_format == "json"
    values = yaml.safe_load((CHART / "ci" / scenario).read_text())
    watches_cm = values.get("reload", {}).get("watchConfigMap", True)
    assert options.config_map == (("kn", RULES_CM) if watches_cm else None)
    assert options.leader_elect == (values.get("replicaCount", 1) > 1)
    mounts = {m["name"]: m["mountPath"] for m in container(manifests)["volumeMounts"]}
    assert mounts["config"] == "/etc/kube-notifier" and mounts["state"] == "/var/lib/kube-notifier"


def test_only_the_state_and_tmp_are_writable(offline_helm: Helm) -> None:
    for scenario, state_volume in [
        ("minimal-values.yaml", {"emptyDir": {"sizeLimit": "256Mi"}}),
        (
            "slack-webhook-values.yaml",
            {"persistentVolumeClaim": {"claimName": f"{FULLNAME}-state"}},
        ),
    ]:
        manifests = offline_helm.template("kn", values_file(scenario))
        main = container(manifests)
        assert main["securityContext"]["readOnlyRootFilesystem"] is True
        writable = {m["mountPath"] for m in main["volumeMounts"] if not m.get("readOnly")}
        assert writable == {"/var/lib/kube-notifier", "/tmp"}
        volumes = {v["name"]: v for v in _pod_template(manifests)["spec"]["volumes"]}
        assert {k: v for k, v in volumes["state"].items() if k != "name"} == state_volume
        assert volumes["tmp"]["emptyDir"]["sizeLimit"] == "64Mi"
    persistent = find(
        offline_helm.template("kn", values_file("slack-webhook-values.yaml")), "Deployment"
    )
    assert persistent["spec"]["strategy"] == {"type": "Recreate"}


def test_leader_election_flags_and_lease_name(offline_helm: Helm) -> None:
    manifests = offline_helm.template(
        "kn", "--set=leaderElection.enabled=true", "--set=leaderElection.leaseName=notifier-lock"
    )
    options = _run_options(manifests)
    assert options.leader_elect and options.lease_namespace == "kn"
    assert options.lease_name == "notifier-lock"
    env = {e["name"]: e["valueFrom"]["fieldRef"]["fieldPath"] for e in container(manifests)["env"]}
    assert env == {"POD_NAME": "metadata.name", "POD_NAMESPACE": "metadata.namespace"}


def test_secrets_reach_the_pod_as_env_and_files_never_the_config(offline_helm: Helm) -> None:
    manifests = offline_helm.template(
        "kn",
        values_file("slack-webhook-values.yaml"),
    )
    main = container(manifests)
    assert main["envFrom"] == [{"secretRef": {"name": "kube-notifier-secrets"}}]
    mounts = {m["name"]: m for m in main["volumeMounts"]}
    assert mounts["secrets"]["mountPath"] == "/var/run/secrets/kube-notifier"
    assert all(m["kind"] != "Secret" for m in manifests)
    created = offline_helm.template(
        "kn", "--set=secret.create=true", "--set=secret.data.KN_SLACK_TOKEN=xoxb-secret"
    )
    assert "xoxb-secret" not in rendered_config(created)
    assert find(created, "Secret")["stringData"] == {"KN_SLACK_TOKEN": "xoxb-secret"}


def _pod_template(manifests: list[Manifest]) -> Manifest:
    template: Manifest = find(manifests, "Deployment")["spec"]["template"]
    return template


def test_restart_checksum_covers_secrets_not_rules(offline_helm: Helm) -> None:
    base = _pod_template(offline_helm.template("kn"))
    rules = _pod_template(offline_helm.template("kn", "--set-json=config.rules=[]"))
    assert rules == base, "a rules change must not touch the pod template"
    with_secret = ["--set=secret.create=true", "--set=secret.data.KN_SLACK_TOKEN=a"]
    first = _pod_template(offline_helm.template("kn", *with_secret))
    second = _pod_template(
        offline_helm.template("kn", *with_secret[:1], "--set=secret.data.KN_SLACK_TOKEN=b")
    )
    checksum = "checksum/config"
    assert first["metadata"]["annotations"][checksum] != second["metadata"]["annotations"][checksum]
    # what the service cannot apply while running rolls the pods; sinks do not
    restarting = [
        '--set-json=watchNamespaces=["team-a"]',
        "--set=config.watch.workers=8",
        '--set-json=config.state={"dead_letter_retention_hours": 24}',
    ]
    for change in restarting:
        changed = _pod_template(offline_helm.template("kn", change))
        assert (
            changed["metadata"]["annotations"][checksum]
            != base["metadata"]["annotations"][checksum]
        ), change
    console = '--set-json=config.sinks=[{"name": "console", "type": "console", "max_lines": 5}]'
    sinks = _pod_template(offline_helm.template("kn", console))
    assert sinks == base, "a sink change hot-reloads"
    image = _pod_template(offline_helm.template("kn", "--set=image.tag=9.9.9"))
    assert image["spec"]["containers"][0]["image"] == "ghcr.io/kube-notifier/kube-notifier:9.9.9"


def test_selectors_never_use_the_chart_label(offline_helm: Helm) -> None:
    manifests = offline_helm.template("kn", values_file("ha-values.yaml"))
    selectors = [
        find(manifests, "Deployment")["spec"]["selector"]["matchLabels"],
        find(manifests, "Service")["spec"]["selector"],
        find(manifests, "PodDisruptionBudget")["spec"]["selector"]["matchLabels"],
        find(manifests, "ServiceMonitor")["spec"]["selector"]["matchLabels"],
    ]
    wanted = {"app.kubernetes.io/name": "kube-notifier", "app.kubernetes.io/instance": RELEASE}
    assert all(selector == wanted for selector in selectors)
    assert "helm.sh/chart" not in _pod_template(manifests)["metadata"]["labels"]


def test_ha_spreads_replicas_and_single_replica_recreates(offline_helm: Helm) -> None:
    ha = find(offline_helm.template("kn", values_file("ha-values.yaml")), "Deployment")["spec"]
    assert ha["strategy"]["type"] == "RollingUpdate"
    keys = {c["topologyKey"] for c in ha["template"]["spec"]["topologySpreadConstraints"]}
    assert keys == {"kubernetes.io/hostname", "topology.kubernetes.io/zone"}
    single = find(offline_helm.template("kn"), "Deployment")["spec"]
    assert single["strategy"] == {"type": "Recreate"}
    assert "topologySpreadConstraints" not in single["template"]["spec"]


# -- monitoring objects name real metrics -----------------------------------------------


def _known_metric_names() -> set[str]:
    import notifier.config.metrics
    import notifier.delivery.metrics
    import notifier.leadership.metrics
    import notifier.queue.metrics
    import notifier.rules.metrics
    import notifier.source.metrics
    import notifier.state.metrics  # noqa: F401 - imported for their registrations

    # Every name the registry would serve, suffixes included (_total, _bucket, ...),
    # also for labelled metrics that have no series yet.
    return set(REGISTRY._names_to_collectors)


def _metric_names(expressions: list[str]) -> set[str]:
    return {name for expr in expressions for name in re.findall(r"\bkube_notifier_\w+", expr)}


def test_alerts_and_dashboard_use_metrics_the_service_exports(offline_helm: Helm) -> None:
    manifests = offline_helm.template("kn", values_file("ha-values.yaml"))
    rules = find(manifests, "PrometheusRule")["spec"]["groups"][0]["rules"]
    alerts = {rule["alert"]: rule["expr"] for rule in rules}
    dashboard = json.loads(find(manifests, "ConfigMap", f"{FULLNAME}-dashboard")["data"][
        "kube-notifier.json"
    ])  # fmt: skip
    panel_exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    used = _metric_names([*alerts.values(), *panel_exprs])
    assert used - _known_metric_names() == set()
    wanted = {
        "kube_notifier_leader_is_leader",
        "kube_notifier_delivery_failed_total",
        "kube_notifier_delivery_dead_lettered_total",
        "kube_notifier_watch_activity_age_seconds",
        "kube_notifier_config_last_reload_successful",
    }
    assert wanted <= _metric_names(list(alerts.values()))
    assert "KubeNotifierDown" in alerts and 'job="kn-kube-notifier"' in alerts["KubeNotifierDown"]
    dashboard_cm = find(manifests, "ConfigMap", f"{FULLNAME}-dashboard")
    assert dashboard_cm["metadata"]["labels"]["grafana_dashboard"] == "1"


def test_no_leader_alert_only_with_leader_election(offline_helm: Helm) -> None:
    manifests = offline_helm.template("kn", "--set=prometheusRule.enabled=true")
    rules = find(manifests, "PrometheusRule")["spec"]["groups"][0]["rules"]
    assert "KubeNotifierNoLeader" not in {rule["alert"] for rule in rules}


# -- RBAC: exactly what is enabled --------------------------------------------------------

Grant = tuple[str, str, str, str, str]  # (namespace or "*", group, resource, verb, name or "")
WORKLOAD_VERBS = ("list", "watch")


def _grants(manifests: list[Manifest]) -> set[Grant]:
    roles = {
        (m["kind"], m["metadata"].get("namespace", "*"), m["metadata"]["name"]): m
        for m in manifests
        if m["kind"] in ("Role", "ClusterRole")
    }
    grants: set[Grant] = set()
    for binding in (m for m in manifests if m["kind"] in ("RoleBinding", "ClusterRoleBinding")):
        scope = binding["metadata"].get("namespace", "*")
        ref = binding["roleRef"]
        role = roles[(ref["kind"], scope if ref["kind"] == "Role" else "*", ref["name"])]
        for rule in role["rules"]:
            for group in rule["apiGroups"]:
                for resource in rule["resources"]:
                    for verb in rule["verbs"]:
                        for name in rule.get("resourceNames", [""]):
                            grants.add((scope, group, resource, verb, name))
    return grants


# The chart's default watch: Pods, Deployments, StatefulSets, DaemonSets and Services.
DEFAULT_KINDS = ("pods", "services", "deployments", "statefulsets", "daemonsets")


def _workloads(scope: str, kinds: tuple[str, ...] = DEFAULT_KINDS) -> set[Grant]:
    groups = {"pods": "", "services": "", "deployments": "apps", "statefulsets": "apps",
              "daemonsets": "apps"}  # fmt: skip
    return {(scope, groups[kind], kind, verb, "") for kind in kinds for verb in WORKLOAD_VERBS}


def _own(namespace: str, *, configmap: bool = True, lease: bool = False) -> set[Grant]:
    silences = f"{FULLNAME}-silences"  # watched by every scenario (silences.enabled)
    grants = {(namespace, "", "events", "create", "")} | {
        (namespace, "", "configmaps", verb, silences) for verb in ("get", "list", "watch")
    }
    if configmap:
        grants |= {
            (namespace, "", "configmaps", verb, RULES_CM) for verb in ("get", "list", "watch")
        }
    if lease:
        grants |= {
            (namespace, "coordination.k8s.io", "leases", "create", ""),
            (namespace, "coordination.k8s.io", "leases", "get", FULLNAME),
            (namespace, "coordination.k8s.io", "leases", "update", FULLNAME),
        }
    return grants


EXPECTED_GRANTS: dict[str, set[Grant]] = {
    "minimal-values.yaml": _workloads("*") | _own("kn"),
    "slack-webhook-values.yaml": _workloads("*") | _own("kn"),
    "alertmanager-values.yaml": _workloads("*") | _own("kn"),  # a sink adds no RBAC
    "ha-values.yaml": _workloads("*")
    | {("*", "", "namespaces", verb, "") for verb in ("get", "list", "watch")}
    | _own("kn", lease=True),
    "extras-values.yaml": _workloads("*")
    | {("*", "example.com", "widgets", verb, "") for verb in ("list", "watch")}
    | _own("kn"),
    "namespaced-values.yaml": _workloads("team-a", ("pods",))
    | _workloads("team-b", ("pods",))
    | _own("kn", configmap=False),
}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_rbac_grants_exactly_what_the_scenario_enables(offline_helm: Helm, scenario: str) -> None:
    grants = _grants(offline_helm.template("kn", values_file(scenario)))
    assert grants == EXPECTED_GRANTS[scenario]
    assert all(g[2] != "secrets" and "*" not in g[1:4] for g in grants)


def test_the_page_may_update_the_silences_configmap_only_when_its_writes_are_on(
    offline_helm: Helm,
) -> None:
    silences = ("kn", "", "configmaps", "update", f"{FULLNAME}-silences")
    default = offline_helm.template("kn", values_file("minimal-values.yaml"))
    writing = offline_helm.template(
        "kn", values_file("minimal-values.yaml"), "--set=page.writes=true"
    )
    off = offline_helm.template(
        "kn", values_file("minimal-values.yaml"), "--set=page.enabled=false"
    )
    assert silences not in _grants(default) and "--page-writes" not in container(default)["args"]
    assert _grants(writing) == _grants(default) | {silences}
    assert "--page-writes" in container(writing)["args"] and _run_options(writing).page_writes
    assert "--no-page" in container(off)["args"] and not _run_options(off).page


ENRICH_RULES = """
config:
  sinks: [{name: out, type: console}]
  rules:
    - {name: crashes, match: {kinds: [Pod]}, sinks: [out], enrich: [logs, owners]}
    - {name: failures, match: {kinds: [Pod]}, sinks: [out], enrich: [logs, events]}
"""
OWNER_KINDS = {
    ("apps", "replicasets"), ("apps", "deployments"), ("apps", "statefulsets"),
    ("apps", "daemonsets"), ("batch", "jobs"), ("batch", "cronjobs"),
    ("", "replicationcontrollers"),
}  # fmt: skip


def test_rbac_for_enrichment_follows_the_rules_that_ask(offline_helm: Helm, tmp_path: Path) -> None:
    values = tmp_path / "enrich.yaml"
    values.write_text(ENRICH_RULES)
    namespaced = tmp_path / "namespaced.yaml"
    namespaced.write_text("watchNamespaces: [team-a]\n")
    cluster_wide = _grants(
        offline_helm.template("kn", values_file("minimal-values.yaml"), f"--values={values}")
    )
    added = cluster_wide - EXPECTED_GRANTS["minimal-values.yaml"]
    assert added == {("*", "", "pods/log", "get", ""), ("*", "", "events", "list", "")} | {
        ("*", group, resource, "get", "") for group, resource in OWNER_KINDS
    }
    in_team_a = _grants(
        offline_helm.template(
            "kn", values_file("minimal-values.yaml"), f"--values={values}", f"--values={namespaced}"
        )
    )
    assert ("team-a", "", "pods/log", "get", "") in in_team_a
    assert not any(grant[0] == "*" and grant[2] == "pods/log" for grant in in_team_a)
    assert ("*", "", "pods/log", "get", "") not in _grants(
        offline_helm.template("kn", values_file("minimal-values.yaml"))
    )


# -- the API server accepts what the chart renders --------------------------------------

MONITORING_CRDS = {"servicemonitors": "ServiceMonitor", "prometheusrules": "PrometheusRule"}


def _crd(plural: str, kind: str) -> Manifest:
    """A minimal stand-in for the Prometheus Operator's CRD: the kind exists, any spec goes."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.monitoring.coreos.com"},
        "spec": {
            "group": "monitoring.coreos.com",
            "scope": "Namespaced",
            "names": {"plural": plural, "singular": kind.lower(), "kind": kind},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "x-kubernetes-preserve-unknown-fields": True,
                        }
                    },
                }
            ],
        },
    }


@pytest.fixture(scope="module")
def monitoring_crds(control_plane: ControlPlane) -> Iterator[None]:
    for plural, kind in MONITORING_CRDS.items():
        control_plane.kubectl_apply(_crd(plural, kind))
    for plural in MONITORING_CRDS:
        control_plane.kubectl(
            "wait", "--for=condition=Established", "--timeout=30s",
            f"crd/{plural}.monitoring.coreos.com",
        )  # fmt: skip
    try:
        yield
    finally:
        for plural in MONITORING_CRDS:
            name = f"crd/{plural}.monitoring.coreos.com"
            control_plane.kubectl("delete", name, "--wait=false", check=False)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_server_side_dry_run_accepts_every_scenario(
    sandbox: Sandbox, monitoring_crds: None, scenario: str
) -> None:
    values = yaml.safe_load((CHART / "ci" / scenario).read_text())
    for name in values.get("watchNamespaces", []):
        sandbox.ensure_namespace(name)
    ns = sandbox.namespace("dry")
    manifests = sandbox.helm.run(
        "template", RELEASE, str(CHART), f"--namespace={ns}",
        f"--kube-version={assets.K8S_VERSION}", values_file(scenario),
    ).stdout  # fmt: skip
    code, out = kubectl(
        sandbox.plane.kubeconfig, "apply", "--dry-run=server", "-f", "-",
        input_text=manifests,
    )  # fmt: skip
    assert code == 0, out
    docs = [doc for doc in yaml.safe_load_all(manifests) if doc]
    assert out.count("(server dry run)") == len(docs), out
    assert {"Deployment", "ServiceAccount", "Role", "ConfigMap"} <= {d["kind"] for d in docs}


# -- Pod Security: restricted ----------------------------------------------------------


def _as_pod(manifests: list[Manifest], name: str) -> Manifest:
    template = _pod_template(manifests)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": template["metadata"]["labels"]},
        "spec": template["spec"],
    }


NON_COMPLIANT = {
    "runs as root": [
        "--set=securityContext.runAsNonRoot=false",
        "--set=securityContext.runAsUser=0",
    ],
    "privileged": [
        "--set=securityContext.privileged=true",
        "--set=securityContext.allowPrivilegeEscalation=true",  # else invalid, not refused
    ],
    "escalation": ["--set=securityContext.allowPrivilegeEscalation=true"],
}  # fmt: skip


def test_restricted_pod_security_admits_the_chart_and_refuses_a_weakened_one(
    sandbox: Sandbox,
) -> None:
    ns = sandbox.namespace("psa", PSA_LABELS)
    installed = sandbox.install(ns)
    assert "would violate PodSecurity" not in installed.stderr, installed.stderr
    assert f"kubectl -n {ns} rollout status deployment/{FULLNAME}" in installed.stdout  # NOTES
    assert f"KUBE_NOTIFIER_SILENCES={ns}/{FULLNAME}-silences" in installed.stdout
    # helm shows the API server's warnings: a weakened chart is flagged at install.
    warnings = sandbox.install(ns, *NON_COMPLIANT["runs as root"], release="weak").stderr
    assert "would violate PodSecurity" in warnings and "runAsNonRoot" in warnings, warnings
    pod = json.dumps(_as_pod(sandbox.helm.template(ns), "kn-check"))
    code, out = kubectl(
        sandbox.plane.kubeconfig, "create", "--dry-run=server", f"--namespace={ns}", "-f", "-",
        input_text=pod,
    )  # fmt: skip
    assert code == 0, out
    for what, values in NON_COMPLIANT.items():
        weak = json.dumps(_as_pod(sandbox.helm.template(ns, *values), "kn-weak"))
        code, out = kubectl(
            sandbox.plane.kubeconfig, "create", "--dry-run=server", f"--namespace={ns}", "-f", "-",
            input_text=weak,
        )  # fmt: skip
        assert code != 0 and 'violates PodSecurity "restricted' in out, (what, out)


def _pods(plane: ControlPlane, ns: str, selector: str) -> list[Manifest]:
    listed = json.loads(
        plane.kubectl("get", "pods", f"--namespace={ns}", "-l", selector, "-o=json")
    )
    pods: list[Manifest] = listed["items"]
    return pods


def _running(plane: ControlPlane, ns: str, selector: str) -> list[Manifest]:
    return [
        pod
        for pod in _pods(plane, ns, selector)
        if pod["status"].get("phase") == "Running" and not pod["metadata"].get("deletionTimestamp")
    ]


@pytest.mark.fullcluster
def test_pod_runs_in_a_restricted_namespace(full_sandbox: Sandbox) -> None:
    plane = full_sandbox.plane
    ns = full_sandbox.namespace("psa-run", PSA_LABELS)
    full_sandbox.install(ns)
    selector = f"app.kubernetes.io/instance={RELEASE}"
    wait_for(lambda: len(_running(plane, ns, selector)) == 1, 60, "the pod Running")
    # The same chart made non-compliant: the ReplicaSet's pods are refused.
    full_sandbox.install(ns, *NON_COMPLIANT["privileged"], release="weak")

    def refused() -> bool:
        events = plane.kubectl("get", "events", f"--namespace={ns}", "-o=json")
        return any(
            e["reason"] == "FailedCreate" and "violates PodSecurity" in e["message"]
            for e in json.loads(events)["items"]
        )

    wait_for(refused, 60, "a FailedCreate event for the privileged variant")
    assert _pods(plane, ns, "app.kubernetes.io/instance=weak") == []


# -- RBAC: a real token of the chart's ServiceAccount ----------------------------------


def token_kubeconfig(plane: ControlPlane, ns: str, path: Path) -> Path:
    token = plane.kubectl(
        "create", "token", FULLNAME, f"--namespace={ns}", "--duration=20m"
    ).strip()
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": "local",
                "cluster": {
                    "server": plane.server,
                    "certificate-authority-data": base64.b64encode(
                        plane.pki.ca_cert.read_bytes()
                    ).decode(),
                },
            }
        ],
        "users": [{"name": "kube-notifier", "user": {"token": token}}],
        "contexts": [{"name": "sa", "context": {"cluster": "local", "user": "kube-notifier"}}],
        "current-context": "sa",
    }
    path.write_text(yaml.safe_dump(config))
    return path


def can_i(kubeconfig: Path, *args: str) -> bool:
    code, out = kubectl(kubeconfig, "auth", "can-i", *args)
    answer = out.split("\n", 1)[0]  # warnings may follow
    assert answer in ("yes", "no"), out
    return code == 0


def test_service_account_can_do_what_it_needs_and_nothing_more(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    ns = sandbox.namespace("rbac")
    other = sandbox.namespace("other")
    sandbox.install(ns, "--set=leaderElection.enabled=true")
    config = token_kubeconfig(sandbox.plane, ns, tmp_path / "sa.kubeconfig")
    allowed = [
        ("list", "pods", "-A"), ("watch", "pods", "-A"),
        ("list", "services", "-A"), ("watch", "services", "-A"),
        ("list", "deployments.apps", "-A"), ("watch", "deployments.apps", "-A"),
        ("get", f"configmaps/{RULES_CM}", f"-n={ns}"),
        ("watch", f"configmaps/{RULES_CM}", f"-n={ns}"),
        ("create", "events", f"-n={ns}"),
        ("create", "leases.coordination.k8s.io", f"-n={ns}"),
        ("update", f"leases.coordination.k8s.io/{FULLNAME}", f"-n={ns}"),
    ]  # fmt: skip
    refused = [
        ("get", "secrets", f"-n={ns}"), ("list", "secrets", f"-n={ns}"), ("list", "secrets", "-A"),
        ("list", "configmaps", f"-n={other}"), ("get", "configmaps/x", f"-n={ns}"),
        ("list", "configmaps", f"-n={ns}"),
        ("create", "pods", f"-n={ns}"), ("delete", "pods", f"-n={ns}"),
        ("get", "pods", f"-n={ns}"), ("patch", "deployments.apps", f"-n={ns}"),
        ("create", "events", f"-n={other}"), ("list", "namespaces", ""),
        ("update", "leases.coordination.k8s.io/other-lease", f"-n={ns}"),
    ]  # fmt: skip
    assert [a for a in allowed if not can_i(config, *filter(None, a))] == []
    assert [r for r in refused if can_i(config, *filter(None, r))] == []
    # list/watch limited by resourceNames: allowed with the name as a field selector only.
    selected = kubectl(
        config, "get", "configmaps", f"-n={ns}", f"--field-selector=metadata.name={RULES_CM}"
    )
    assert selected[0] == 0 and RULES_CM in selected[1], selected[1]
    code, out = kubectl(config, "get", "configmaps", f"-n={ns}")
    assert code != 0 and "Forbidden" in out, out


def test_namespaced_release_cannot_watch_the_cluster(sandbox: Sandbox, tmp_path: Path) -> None:
    ns = sandbox.namespace("rbac-ns")
    team = sandbox.namespace("team")
    sandbox.install(ns, f'--set-json=watchNamespaces=["{team}"]')
    config = token_kubeconfig(sandbox.plane, ns, tmp_path / "sa.kubeconfig")
    assert can_i(config, "list", "pods", f"-n={team}")
    assert can_i(config, "watch", "deployments.apps", f"-n={team}")
    assert not can_i(config, "list", "pods", "-A")
    assert not can_i(config, "list", "pods", f"-n={ns}")


def _scrape(service: ServiceProcess) -> dict[str, float]:
    status, text = service.get("/metrics")
    assert status == 200
    return {
        sample.name + json.dumps(sample.labels, sort_keys=True): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name.startswith("kube_notifier_config")
    }


def _reload_successes(service: ServiceProcess) -> float:
    return _scrape(service).get('kube_notifier_config_reloads_total{"result": "success"}', 0.0)


def _lease_holder(plane: ControlPlane, ns: str) -> str:
    code, out = kubectl(plane.kubeconfig, "get", "lease", FULLNAME, f"-n={ns}", "-o=json")
    holder: str = json.loads(out)["spec"].get("holderIdentity", "") if code == 0 else ""
    return holder


def _warning_events_on_rules(plane: ControlPlane, ns: str) -> list[Manifest]:
    events = json.loads(plane.kubectl("get", "events", f"-n={ns}", "-o=json"))["items"]
    return [
        e
        for e in events
        if e["type"] == "Warning"
        and e["involvedObject"].get("kind") == "ConfigMap"
        and e["involvedObject"].get("name") == RULES_CM
    ]


RULES_V2 = """\
config:
  rules:
    - name: crashloops-only
      match:
        kinds: [Pod]
        to: [CrashLoopBackOff]
      sinks: [console]
"""


def test_service_runs_with_the_chart_rbac(sandbox: Sandbox, tmp_path: Path) -> None:
    """The service itself, with the ServiceAccount's token: informers sync, the Lease is
    taken, a rules change reloads through the ConfigMap watch, a bad one gets an Event."""
    ns = sandbox.namespace("rbac-run")
    sandbox.install(ns, "--set=leaderElection.enabled=true")
    kubeconfig = token_kubeconfig(sandbox.plane, ns, tmp_path / "sa.kubeconfig")
    manifests = sandbox.helm.template(ns, "--set=leaderElection.enabled=true")
    config = tmp_path / "config.yaml"
    config.write_text(rendered_config(manifests))
    # The chart's own flags, but for the paths and port that belong to the pod.
    local = ("--config=", "--state=", "--listen=", "--log-format=")
    flags = [arg for arg in container(manifests)["args"] if not arg.startswith(local)]
    assert f"--config-map={ns}/{RULES_CM}" in flags and "--leader-elect" in flags
    flags.append("--identity=test-replica")  # POD_NAME in the pod
    service = ServiceProcess(config, kubeconfig, "none", extra=flags).start()
    try:
        service.wait_ready(timeout=60)
        wait_for(lambda: _lease_holder(sandbox.plane, ns) == "test-replica", 30, "the Lease")
        before = _reload_successes(service)
        rules = tmp_path / "rules-v2.yaml"
        rules.write_text(RULES_V2)
        sandbox.upgrade(ns, "--set=leaderElection.enabled=true", f"--values={rules}")
        wait_for(lambda: _reload_successes(service) > before, 30, "the rules reloaded")
        sandbox.plane.kubectl(
            "patch", "configmap", RULES_CM, f"-n={ns}", "--type=merge",
            "-p", json.dumps({"data": {"config.yaml": "rules: [{name: x, matc: {}}]\n"}}),
        )  # fmt: skip
        wait_for(lambda: bool(_warning_events_on_rules(sandbox.plane, ns)), 30, "a Warning Event")
        assert service.get("/readyz")[0] == 200, "a rejected change keeps the last good rules"
    finally:
        assert service.stop() == 0, service.output()


# -- upgrades: rules reload, an image change rolls ---------------------------------------


def _deployment(plane: ControlPlane, ns: str) -> Manifest:
    deployment: Manifest = json.loads(
        plane.kubectl("get", "deployment", FULLNAME, f"-n={ns}", "-o=json")
    )
    return deployment


def _replica_sets(plane: ControlPlane, ns: str) -> set[str]:
    listed = json.loads(
        plane.kubectl("get", "replicasets", f"-n={ns}", f"-l=app.kubernetes.io/instance={RELEASE}",
                      "-o=json")
    )  # fmt: skip
    return {rs["metadata"]["name"] for rs in listed["items"]}


@pytest.mark.fullcluster
def test_rules_upgrade_keeps_the_pod_and_image_upgrade_replaces_it(
    full_sandbox: Sandbox, tmp_path: Path
) -> None:
    plane = full_sandbox.plane
    ns = full_sandbox.namespace("upgrade")
    selector = f"app.kubernetes.io/instance={RELEASE}"
    full_sandbox.install(ns, "--set=image.tag=1.0.0")
    wait_for(lambda: len(_running(plane, ns, selector)) == 1, 60, "the first pod Running")
    pod_uid = _running(plane, ns, selector)[0]["metadata"]["uid"]
    generation = _deployment(plane, ns)["metadata"]["generation"]
    replica_sets = _replica_sets(plane, ns)

    rules = tmp_path / "rules-v2.yaml"
    rules.write_text(RULES_V2)
    full_sandbox.upgrade(ns, "--set=image.tag=1.0.0", f"--values={rules}")
    config = plane.kubectl("get", "configmap", RULES_CM, f"-n={ns}", "-o=jsonpath={.data}")
    assert "crashloops-only" in config
    time.sleep(2)  # give the controllers a chance to (wrongly) roll
    assert _deployment(plane, ns)["metadata"]["generation"] == generation
    assert _replica_sets(plane, ns) == replica_sets
    assert [p["metadata"]["uid"] for p in _running(plane, ns, selector)] == [pod_uid]

    full_sandbox.upgrade(ns, "--set=image.tag=1.0.1", f"--values={rules}")
    assert _deployment(plane, ns)["metadata"]["generation"] == generation + 1

    def replaced() -> bool:
        running = _running(plane, ns, selector)
        return len(running) == 1 and running[0]["metadata"]["uid"] != pod_uid

    wait_for(replaced, 60, "a new pod from the new image")
    new_pod = _running(plane, ns, selector)[0]
    assert new_pod["spec"]["containers"][0]["image"] == "ghcr.io/kube-notifier/kube-notifier:1.0.1"
    assert len(_replica_sets(plane, ns) - replica_sets) == 1


def test_dashboard_shows_what_the_issue_asks_for() -> None:
    dashboard = json.loads((CHART / "dashboards" / "kube-notifier.json").read_text())
    titles = {panel["title"] for panel in dashboard["panels"]}
    wanted = {
        "Watch events", "Transitions evaluated", "Suppressed", "Messages", "Deliveries",
        "Delivery latency", "Queue depth", "Config reloads",
    }  # fmt: skip
    assert wanted <= titles, wanted - titles
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize(
    ("values", "image"),
    [
        ([], "ghcr.io/kube-notifier/kube-notifier:0.1.0"),
        (
            ["--set=image.registry=registry.example/team", "--set=image.repository=kn"],
            "registry.example/team/kn:0.1.0",
        ),
        (
            ["--set=image.registry=registry.example", "--set=global.imageRegistry=mirror.example"],
            "mirror.example/kube-notifier/kube-notifier:0.1.0",
        ),
        (["--set=image.registry=", "--set=image.tag=1.2.3"], "kube-notifier/kube-notifier:1.2.3"),
    ],
)
def test_image_fields_follow_the_common_shape(
    offline_helm: Helm, values: list[str], image: str
) -> None:
    assert container(offline_helm.template("kn", *values))["image"] == image


def test_common_labels_reach_every_object_but_no_selector(offline_helm: Helm) -> None:
    manifests = offline_helm.template(
        "kn", values_file("ha-values.yaml"), "--set=commonLabels.team=platform"
    )
    assert all(m["metadata"]["labels"]["team"] == "platform" for m in manifests)
    selector = find(manifests, "Deployment")["spec"]["selector"]["matchLabels"]
    assert "team" not in selector


def test_service_monitor_options_and_the_network_policy(offline_helm: Helm) -> None:
    manifests = offline_helm.template(
        "kn",
        "--set=serviceMonitor.enabled=true",
        "--set=serviceMonitor.jobLabel=app",
        "--set=serviceMonitor.honorLabels=true",
        "--set=serviceMonitor.relabelings[0].targetLabel=cluster",
        "--set=serviceMonitor.relabelings[0].replacement=prod",
        "--set=serviceMonitor.metricRelabelings[0].action=drop",
        "--set=serviceMonitor.metricRelabelings[0].regex=go_.*",
        "--set=serviceMonitor.tlsConfig.insecureSkipVerify=true",
        "--set=networkPolicy.enabled=true",
        "--set=networkPolicy.ingressFrom[0].namespaceSelector.matchLabels.name=monitoring",
    )
    monitor = find(manifests, "ServiceMonitor")["spec"]
    [endpoint] = monitor["endpoints"]
    assert monitor["jobLabel"] == "app" and endpoint["honorLabels"] is True
    assert endpoint["relabelings"] == [{"targetLabel": "cluster", "replacement": "prod"}]
    assert endpoint["metricRelabelings"] == [{"action": "drop", "regex": "go_.*"}]
    assert endpoint["tlsConfig"] == {"insecureSkipVerify": True}
    policy = find(manifests, "NetworkPolicy")["spec"]
    assert policy["policyTypes"] == ["Ingress"]
    [rule] = policy["ingress"]
    assert rule["ports"] == [{"port": "http", "protocol": "TCP"}]
    assert rule["from"] == [{"namespaceSelector": {"matchLabels": {"name": "monitoring"}}}]
    assert not [m for m in offline_helm.template("kn") if m["kind"] == "NetworkPolicy"]


def test_dashboard_filters_by_cluster_namespace_and_job() -> None:
    dashboard = json.loads((CHART / "dashboards" / "kube-notifier.json").read_text())
    names = [variable["name"] for variable in dashboard["templating"]["list"]]
    assert names[:4] == ["datasource", "cluster", "namespace", "job"]
    exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    assert exprs and all('cluster=~"$cluster"' in expr for expr in exprs)


def test_the_helm_built_for_the_tests_reports_its_version(offline_helm: Helm) -> None:
    version = offline_helm.run("version", "--template={{.Version}}").stdout.strip()
    assert version == f"v{assets.HELM_VERSION}"
    # Without --kube-version helm assumes the Kubernetes it was built for, which the
    # chart's kubeVersion (>= 1.25) accepts; an unstamped build assumed 1.20.
    out = offline_helm.run("template", RELEASE, str(CHART)).stdout
    assert "kind: Deployment" in out
