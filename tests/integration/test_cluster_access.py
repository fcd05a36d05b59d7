"""What users' kubeconfigs hold reaches the real API server: proxies, lists, impersonation, certs.

Who the API server took us for is read from a SelfSubjectReview; RBAC
shows whose rights apply.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml

from notifier.cli import build_parser
from notifier.cli.run import options_from
from notifier.source.access import cluster_access
from notifier.source.client import ApiError, RawClient
from notifier.source.credentials import load_access
from tests.controlplane.certs import client_cert
from tests.controlplane.cluster import ControlPlane
from tests.support.http_proxy import HttpProxy

pytestmark = pytest.mark.integration

PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY")
CERT_PLUGIN = """\
import json, sys
from pathlib import Path
here = Path(sys.argv[1])
print(json.dumps({"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                  "status": {"clientCertificateData": (here / "tls.crt").read_text(),
                             "clientKeyData": (here / "tls.key").read_text()}}))
"""


@pytest.fixture(autouse=True)
def no_proxy_from_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


def set_proxy_env(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    monkeypatch.setenv(name.lower(), value)


def admin_config(plane: ControlPlane) -> dict[str, Any]:
    config: dict[str, Any] = yaml.safe_load(plane.kubeconfig.read_text())
    return config


def write(path: Path, config: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(config))
    return path


def with_user(plane: ControlPlane, path: Path, user: dict[str, Any]) -> Path:
    config = admin_config(plane)
    config["users"][0]["user"] = user
    return write(path, config)


def who_am_i(client: RawClient) -> tuple[str, list[str]]:
    review = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
    body = client.send("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", body=review)
    user = json.loads(body)["status"]["userInfo"]
    return user["username"], user.get("groups", [])


def list_pods(client: RawClient) -> bytes:
    return client.get("/api/v1/pods", {"limit": "1"})


def test_proxy_url_reaches_the_api_server_through_a_connect_proxy(
    control_plane: ControlPlane, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_proxy_env(monkeypatch, "NO_PROXY", "127.0.0.1")  # kubectl: proxy-url applies regardless
    with HttpProxy() as proxy:
        config = admin_config(control_plane)
        config["clusters"][0]["cluster"]["proxy-url"] = proxy.url
        client = RawClient(load_access(str(write(tmp_path / "config", config))))

        assert b'"kind":"PodList"' in list_pods(client)
        query = {"watch": "true", "fieldSelector": "metadata.name=default"}
        first = next(iter(client.stream_lines("/api/v1/namespaces", query, 10.0)))
        assert b'"type":"ADDED"' in first

        assert set(proxy.tunnels) == {f"127.0.0.1:{control_plane.apiserver_port}"}


def test_https_proxy_from_the_environment_unless_no_proxy_names_the_server(
    control_plane: ControlPlane, monkeypatch: pytest.MonkeyPatch
) -> None:
    with HttpProxy() as proxy:
        set_proxy_env(monkeypatch, "HTTPS_PROXY", proxy.url)
        assert b'"kind":"PodList"' in list_pods(
            RawClient(load_access(str(control_plane.kubeconfig)))
        )
        assert len(proxy.tunnels) == 1

        set_proxy_env(monkeypatch, "NO_PROXY", "example.com,127.0.0.1")
        assert b'"kind":"PodList"' in list_pods(
            RawClient(load_access(str(control_plane.kubeconfig)))
        )
        assert len(proxy.tunnels) == 1  # straight to the API server


def test_a_kubeconfig_list_in_kubeconfig_env_is_merged_by_run(
    control_plane: ControlPlane, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = admin_config(control_plane)
    clusters = write(tmp_path / "clusters", {**config, "users": []})
    users = write(tmp_path / "users", {"users": config["users"], "current-context": "elsewhere"})
    monkeypatch.setenv("KUBECONFIG", f"{clusters}:{tmp_path / 'absent'}:{users}")

    opts = options_from(build_parser().parse_args(["run"]))  # what `kube-notifier run` loads

    assert b'"kind":"PodList"' in list_pods(
        RawClient(cluster_access(opts.kubeconfig, opts.context))
    )


def test_impersonation_applies_the_impersonated_users_rights(
    control_plane: ControlPlane, tmp_path: Path
) -> None:
    suffix = uuid.uuid4().hex[:6]
    user, group = f"jane-{suffix}", f"viewers-{suffix}"
    control_plane.kubectl(
        "create", "role", group, "-n", "default", "--verb=list", "--resource=configmaps"
    )
    control_plane.kubectl(
        "create", "rolebinding", group, "-n", "default", f"--role={group}", f"--group={group}"
    )
    admin = admin_config(control_plane)["users"][0]["user"]
    impersonating = {**admin, "as": user, "as-groups": [f"others-{suffix}", group]}
    client = RawClient(
        load_access(str(with_user(control_plane, tmp_path / "config", impersonating)))
    )

    name, groups = who_am_i(client)
    assert name == user and {f"others-{suffix}", group} <= set(groups)
    assert b'"kind":"ConfigMapList"' in client.get("/api/v1/namespaces/default/configmaps", {})
    with pytest.raises(ApiError) as raised:
        list_pods(client)  # the admin may; the impersonated user may not
    assert raised.value.status == 403 and user in raised.value.message


def test_an_exec_plugin_that_returns_a_client_certificate(
    control_plane: ControlPlane, tmp_path: Path
) -> None:
    user = f"cert-user-{uuid.uuid4().hex[:6]}"
    cert, key = client_cert(control_plane.pki, user)
    (tmp_path / "tls.crt").write_bytes(cert)
    (tmp_path / "tls.key").write_bytes(key)
    (tmp_path / "plugin.py").write_text(CERT_PLUGIN)
    plugin = {
        "command": sys.executable,
        "args": [str(tmp_path / "plugin.py"), str(tmp_path)],
        "apiVersion": "client.authentication.k8s.io/v1",
    }
    path = with_user(control_plane, tmp_path / "config", {"exec": plugin})

    assert who_am_i(RawClient(load_access(str(path))))[0] == user
