"""Finding the API server and credentials in kubeconfigs and in a Pod, as kubectl does."""

from __future__ import annotations

import base64
import json
import ssl
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from notifier.source.credentials import ClusterAccess, CredentialsError, load_access
from tests.controlplane.certs import Pki, make_pki

SERVER = {"server": "https://h:1"}


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(autouse=True)
def no_proxy_from_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


def b64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode()


def write_kubeconfig(
    path: Path,
    *,
    cluster: dict[str, Any],
    user: dict[str, Any],
    current: str | None = "ctx",
    suffix: str = "",
) -> Path:
    """One cluster, user and context, named ``c``/``u``/``ctx`` plus ``suffix``."""
    context = {"cluster": f"c{suffix}", "user": f"u{suffix}"}
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": f"c{suffix}", "cluster": cluster}],
        "users": [{"name": f"u{suffix}", "user": user}],
        "contexts": [{"name": f"ctx{suffix}", "context": context}],
    }
    if current:
        config["current-context"] = current
    path.write_text(yaml.safe_dump(config))
    return path


def bearer(access: ClusterAccess) -> str:
    return str(access.api.configuration.get_api_key_with_prefix("BearerToken"))


def test_client_certificate_and_ca_as_data(tmp_path: Path, pki: Pki) -> None:
    cluster = {"server": "https://127.0.0.1:6443/", "certificate-authority-data": b64(pki.ca_cert)}
    user = {"client-certificate-data": b64(pki.admin_cert), "client-key-data": b64(pki.admin_key)}

    config = load_access(str(write_kubeconfig(tmp_path / "k", cluster=cluster, user=user)))
    configuration = config.api.configuration

    assert config.server == "https://127.0.0.1:6443"
    assert configuration.verify_ssl and "BearerToken" not in configuration.api_key
    assert Path(configuration.ssl_ca_cert).read_bytes() == pki.ca_cert.read_bytes()
    assert Path(configuration.cert_file).read_bytes() == pki.admin_cert.read_bytes()
    assert Path(configuration.key_file).read_bytes() == pki.admin_key.read_bytes()


def test_file_paths_are_relative_to_the_kubeconfig(tmp_path: Path, pki: Pki) -> None:
    (tmp_path / "certs").mkdir()
    (tmp_path / "certs" / "ca.crt").write_bytes(pki.ca_cert.read_bytes())
    (tmp_path / "token").write_text("abc")
    cluster = {"server": "https://h:1", "certificate-authority": "certs/ca.crt"}
    path = write_kubeconfig(tmp_path / "config", cluster=cluster, user={"tokenFile": "token"})

    access = load_access(str(path))

    assert access.api.configuration.ssl_ca_cert == str(tmp_path / "certs" / "ca.crt")
    assert bearer(access) == "Bearer abc"


def test_token_and_tls_options(tmp_path: Path) -> None:
    cluster = {"server": "https://h:1", "insecure-skip-tls-verify": True, "tls-server-name": "api"}
    path = write_kubeconfig(tmp_path / "a", cluster=cluster, user={"token": "t"})
    access = load_access(str(path))

    assert bearer(access) == "Bearer t"
    assert not access.api.configuration.verify_ssl
    assert access.api.configuration.tls_server_name == "api"


def test_kubeconfig_list_merges_first_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = write_kubeconfig(
        tmp_path / "first", cluster={"server": "https://first:1"}, user={"token": "one"}
    )
    second = write_kubeconfig(
        tmp_path / "second",
        cluster={"server": "https://second:1"},
        user={"token": "two"},
        current="ctx2",
        suffix="2",
    )
    monkeypatch.setenv("KUBECONFIG", f"{tmp_path / 'missing'}:{first}:{second}")

    access = load_access()  # the first file to set current-context wins, as in kubectl
    assert (access.server, bearer(access)) == ("https://first:1", "Bearer one")
    other = load_access(context="ctx2")
    assert (other.server, bearer(other)) == ("https://second:1", "Bearer two")
    assert load_access(f"{second}:{first}").server == "https://second:1"  # a list as the flag


def test_with_no_ca_or_client_certificate_of_ours_nothing_is_loaded_at_start(
    tmp_path: Path, pki: Pki, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The system's CAs take ~15 ms to parse and are not the config's to check."""
    loaded: list[object] = []
    create = ssl.create_default_context

    def noting(**options: Any) -> ssl.SSLContext:
        loaded.append(options)
        return create(**options)

    monkeypatch.setattr(ssl, "create_default_context", noting)
    load_access(str(write_kubeconfig(tmp_path / "a", cluster=SERVER, user={"token": "t"})))
    assert loaded == []
    cluster = {**SERVER, "certificate-authority-data": b64(pki.ca_cert)}
    load_access(str(write_kubeconfig(tmp_path / "b", cluster=cluster, user={"token": "t"})))
    assert len(loaded) == 1  # a CA of the config's is loaded, so a broken one fails at start


def test_impersonation_becomes_headers(tmp_path: Path) -> None:
    user = {
        "token": "t",
        "as": "jane",
        "as-uid": "42",
        "as-groups": ["viewers", "editors"],
        "as-user-extra": {"scopes/x": ["a", "b"]},
    }

    access = load_access(str(write_kubeconfig(tmp_path / "k", cluster=SERVER, user=user)))

    assert access.impersonation == (
        ("Impersonate-User", "jane"),
        ("Impersonate-Uid", "42"),
        ("Impersonate-Group", "viewers"),
        ("Impersonate-Group", "editors"),
        ("Impersonate-Extra-scopes%2Fx", "a"),
        ("Impersonate-Extra-scopes%2Fx", "b"),
    )


def test_proxy_url_applies_whatever_no_proxy_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_PROXY", "h")
    cluster = {"server": "https://h:1", "proxy-url": "http://proxy:3128"}

    access = load_access(str(write_kubeconfig(tmp_path / "k", cluster=cluster, user={})))

    assert access.api.configuration.proxy == "http://proxy:3128"
    assert type(access.api.rest_client.pool_manager).__name__ == "ProxyManager"


def test_proxy_from_the_environment_and_no_proxy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(write_kubeconfig(tmp_path / "k", cluster=SERVER, user={}))
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy:3128")
    assert type(load_access(path).api.rest_client.pool_manager).__name__ == "ProxyManager"
    monkeypatch.setenv("NO_PROXY", "example.com,h")
    assert type(load_access(path).api.rest_client.pool_manager).__name__ == "PoolManager"


def jwt(claims: dict[str, Any]) -> str:
    def part(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none'})}.{part(claims)}.c2ln"


def test_oidc_auth_provider_sends_its_id_token(tmp_path: Path) -> None:
    token = jwt({"sub": "jane", "exp": int(time.time()) + 3600})
    user = {"auth-provider": {"name": "oidc", "config": {"id-token": token, "client-id": "k"}}}

    access = load_access(str(write_kubeconfig(tmp_path / "k", cluster=SERVER, user=user)))

    assert bearer(access) == f"Bearer {token}"


def test_a_failing_exec_plugin_is_an_error_with_its_install_hint(tmp_path: Path) -> None:
    plugin = {
        "command": sys.executable,
        "args": ["-c", "raise SystemExit(3)"],
        "apiVersion": "client.authentication.k8s.io/v1",
        "installHint": "install it with brew",
    }
    path = write_kubeconfig(tmp_path / "k", cluster=SERVER, user={"exec": plugin})

    with pytest.raises(CredentialsError, match="gave no token or client certificate") as raised:
        load_access(str(path))
    assert "install it with brew" in str(raised.value) and str(path) in str(raised.value)


@pytest.mark.parametrize(
    ("user", "cluster", "context", "fragment"),
    [
        ({}, SERVER, "nope", "nope"),
        ({"auth-provider": {"name": "gcp"}}, SERVER, None, "gke-gcloud-auth-plugin"),
        ({"auth-provider": {"name": "azure"}}, SERVER, None, "kubelogin"),
        ({"client-key-data": "%%%"}, SERVER, None, "both a certificate and a key"),
        ({"client-certificate-data": "AAAA"}, SERVER, None, "both a certificate and a key"),
        ({"client-certificate-data": "AAAA", "client-key-data": "AAAA"}, SERVER, None, "cannot"),
        ({}, {"server": "h:1"}, None, "no http(s) server URL"),
        ({}, {"certificate-authority-data": "AAAA"}, None, "no http(s) server URL"),
        ({}, {"server": "https://h:1", "certificate-authority": "nope.crt"}, None, "nope.crt"),
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


def test_missing_unreadable_or_broken_files(tmp_path: Path) -> None:
    with pytest.raises(CredentialsError, match=r"no kubeconfig: none of .*absent exists"):
        load_access(str(tmp_path / "absent"))
    (tmp_path / "broken").write_text("clusters: [\n")
    with pytest.raises(CredentialsError, match="not valid YAML"):
        load_access(str(tmp_path / "broken"))
    path = write_kubeconfig(tmp_path / "k", cluster=SERVER, user={}, current=None)
    with pytest.raises(CredentialsError, match="no current-context and no --context"):
        load_access(str(path))


def test_in_cluster_service_account(
    tmp_path: Path, pki: Pki, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.kube/config
    monkeypatch.delenv("KUBECONFIG", raising=False)
    (tmp_path / "ca.crt").write_bytes(pki.ca_cert.read_bytes())
    (tmp_path / "token").write_text("sa-token")
    env = {"KUBERNETES_SERVICE_HOST": "fd00::1", "KUBERNETES_SERVICE_PORT": "443"}

    access = load_access(env=env, account_dir=tmp_path)

    assert access.server == "https://[fd00::1]:443"
    assert bearer(access) == "bearer sa-token"
    assert access.api.configuration.ssl_ca_cert == str(tmp_path / "ca.crt")
    with pytest.raises(CredentialsError, match="not a Pod"):
        load_access(env={}, account_dir=tmp_path)
    with pytest.raises(CredentialsError, match="does not exist"):
        load_access(env=env, account_dir=tmp_path / "elsewhere")
