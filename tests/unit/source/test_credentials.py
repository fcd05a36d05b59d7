"""Finding the API server and credentials in kubeconfigs and in a Pod, as kubectl does."""

from __future__ import annotations

import base64
import ssl
from pathlib import Path
from typing import Any

import pytest
import yaml

from notifier.source.auth import BearerToken, ExecPlugin, NoAuth, TokenFile
from notifier.source.credentials import CredentialsError, in_cluster_access, load_access
from tests.controlplane.certs import Pki, make_pki


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


def b64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode()


def write_kubeconfig(
    path: Path,
    *,
    cluster: dict[str, Any],
    user: dict[str, Any],
    current: str | None = "ctx",
    context: str = "ctx",
) -> Path:
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "current-context": current,
                "clusters": [{"name": "c", "cluster": cluster}],
                "users": [{"name": "u", "user": user}],
                "contexts": [{"name": context, "context": {"cluster": "c", "user": "u"}}],
            }
        )
    )
    return path


def test_client_certificate_and_ca_as_data(tmp_path: Path, pki: Pki) -> None:
    path = write_kubeconfig(
        tmp_path / "config",
        cluster={
            "server": "https://127.0.0.1:6443/",
            "certificate-authority-data": b64(pki.ca_cert),
        },
        user={
            "client-certificate-data": b64(pki.admin_cert),
            "client-key-data": b64(pki.admin_key),
        },
    )

    access = load_access(str(path))

    assert access.server == "https://127.0.0.1:6443"
    assert isinstance(access.auth, NoAuth)
    assert access.tls.verify_mode == ssl.CERT_REQUIRED and access.tls.check_hostname
    [ca] = access.tls.get_ca_certs()  # only the cluster's CA is trusted, not the system's
    assert ("commonName", "kube-notifier-test-ca") in ca["subject"][0]


def test_file_paths_are_relative_to_the_kubeconfig(tmp_path: Path, pki: Pki) -> None:
    (tmp_path / "certs").mkdir()
    for source, name in ((pki.ca_cert, "ca.crt"), (pki.admin_cert, "a.crt")):
        (tmp_path / "certs" / name).write_bytes(source.read_bytes())
    (tmp_path / "certs" / "a.key").write_bytes(pki.admin_key.read_bytes())
    (tmp_path / "token").write_text("abc\n")
    path = write_kubeconfig(
        tmp_path / "config",
        cluster={"server": "https://h:1", "certificate-authority": "certs/ca.crt"},
        user={
            "client-certificate": "certs/a.crt",
            "client-key": "certs/a.key",
            "tokenFile": "token",
        },
    )

    access = load_access(str(path))

    assert isinstance(access.auth, TokenFile)
    assert access.auth.headers() == {"Authorization": "Bearer abc"}
    assert len(access.tls.get_ca_certs()) == 1


def test_token_exec_and_tls_options(tmp_path: Path) -> None:
    cluster = {"server": "https://h:1", "insecure-skip-tls-verify": True, "tls-server-name": "api"}
    token = load_access(str(write_kubeconfig(tmp_path / "a", cluster=cluster, user={"token": "t"})))
    assert isinstance(token.auth, BearerToken) and token.server_hostname == "api"
    assert token.tls.verify_mode == ssl.CERT_NONE
    exec_user = {"exec": {"command": "./bin/plugin", "args": ["get"], "apiVersion": "x/v1"}}
    plugin = load_access(str(write_kubeconfig(tmp_path / "b", cluster=cluster, user=exec_user)))
    assert isinstance(plugin.auth, ExecPlugin)


def test_kubeconfig_list_merges_first_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = write_kubeconfig(
        tmp_path / "first", cluster={"server": "https://first:1"}, user={"token": "one"}
    )
    second = write_kubeconfig(
        tmp_path / "second",
        cluster={"server": "https://second:1"},
        user={"token": "two"},
        current="other",
        context="other",
    )
    monkeypatch.setenv("KUBECONFIG", f"{tmp_path / 'missing'}:{first}:{second}")

    access = load_access()
    assert access.server == "https://first:1"
    assert access.auth.headers() == {"Authorization": "Bearer one"}
    # the second file's context is there, but "c" and "u" were named by the first file first
    assert load_access(context="other").server == "https://first:1"


@pytest.mark.parametrize(
    ("user", "cluster", "context", "fragment"),
    [
        ({}, {"server": "https://h:1"}, "nope", "no context 'nope' (defined: ctx)"),
        ({"auth-provider": {"name": "oidc"}}, {"server": "https://h:1"}, None, "exec credential"),
        ({"client-certificate-data": "AAAA"}, {"server": "https://h:1"}, None, "both"),
        ({"client-key-data": "%%%"}, {"server": "https://h:1"}, None, "client-key-data is not"),
        ({}, {"server": "h:1"}, None, "no http(s) server URL"),
        ({}, {"server": "https://h:1", "certificate-authority": "nope.crt"}, None, "authority"),
        ({}, {"server": "https://h:1", "proxy-url": "http://p"}, None, "proxy-url"),
        ({"exec": {"args": ["x"]}}, {"server": "https://h:1"}, None, "exec has no command"),
    ],
)
def test_problems_name_the_file_and_entry(
    tmp_path: Path,
    user: dict[str, Any],
    cluster: dict[str, Any],
    context: str | None,
    fragment: str,
) -> None:
    path = write_kubeconfig(tmp_path / "config", cluster=cluster, user=user)
    with pytest.raises(CredentialsError) as raised:
        load_access(str(path), context)
    assert fragment in str(raised.value)
    assert str(path) in str(raised.value)


def test_unreadable_or_broken_files(tmp_path: Path) -> None:
    with pytest.raises(CredentialsError, match="cannot read kubeconfig"):
        load_access(str(tmp_path / "absent"))
    (tmp_path / "broken").write_text("clusters: [\n")
    with pytest.raises(CredentialsError, match="not valid YAML"):
        load_access(str(tmp_path / "broken"))


def test_in_cluster_service_account(tmp_path: Path, pki: Pki) -> None:
    (tmp_path / "ca.crt").write_bytes(pki.ca_cert.read_bytes())
    (tmp_path / "token").write_text("sa-token")
    env = {"KUBERNETES_SERVICE_HOST": "fd00::1", "KUBERNETES_SERVICE_PORT": "443"}

    access = in_cluster_access(env, tmp_path)

    assert access.server == "https://[fd00::1]:443"
    assert access.auth.headers() == {"Authorization": "Bearer sa-token"}
    with pytest.raises(CredentialsError, match="not in a Pod"):
        in_cluster_access({}, tmp_path)
    with pytest.raises(CredentialsError, match="CA"):
        in_cluster_access(env, tmp_path / "elsewhere")
