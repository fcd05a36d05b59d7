"""When credentials are loaded again: token files each minute, exec plugins at expiry or on 401."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import yaml

from notifier.source.credentials import ClusterAccess, in_cluster_access, load_access
from tests.controlplane.certs import Pki, client_cert, make_pki

API_VERSION = "client.authentication.k8s.io/v1"

# Prints token "t<run>", valid for argv[2] seconds (none if "-"), or, with argv[3], that
# directory's tls.crt/tls.key as a client certificate; counts its runs in argv[1].
PLUGIN = """\
import datetime as dt, json, sys
from pathlib import Path
runs = Path(sys.argv[1])
count = int(runs.read_text()) + 1 if runs.exists() else 1
runs.write_text(str(count))
status = {"token": f"t{count}"}
if len(sys.argv) > 3:
    pem = Path(sys.argv[3])
    status = {"clientCertificateData": (pem / "tls.crt").read_text(),
              "clientKeyData": (pem / "tls.key").read_text()}
if sys.argv[2] != "-":
    end = dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=float(sys.argv[2]))
    status["expirationTimestamp"] = end.strftime("%Y-%m-%dT%H:%M:%SZ")
print(json.dumps({"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                  "status": status}))
"""


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def kubeconfig(path: Path, user: dict[str, Any]) -> str:
    config = {
        "clusters": [{"name": "c", "cluster": {"server": "https://h:1"}}],
        "users": [{"name": "u", "user": user}],
        "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "x",
    }
    path.write_text(yaml.safe_dump(config))
    return str(path)


def exec_user(tmp_path: Path, *args: str) -> dict[str, Any]:
    (tmp_path / "plugin.py").write_text(PLUGIN)
    plugin_args = [str(tmp_path / "plugin.py"), str(tmp_path / "runs"), *args]
    return {"exec": {"command": sys.executable, "args": plugin_args, "apiVersion": API_VERSION}}


def token(access: ClusterAccess) -> str:
    access.renewal.renew_if_due(access.api)
    return str(access.api.configuration.api_key.get("BearerToken"))


def runs(tmp_path: Path) -> int:
    return int((tmp_path / "runs").read_text())


def test_a_token_file_is_read_again_each_minute(tmp_path: Path) -> None:
    (tmp_path / "token").write_text("first")
    clock = Clock()
    access = load_access(kubeconfig(tmp_path / "k", {"tokenFile": "token"}), clock=clock)
    (tmp_path / "token").write_text("second")

    clock.now += 59
    assert token(access) == "Bearer first"
    clock.now += 2
    assert token(access) == "Bearer second"


def test_the_service_account_token_is_read_again_each_minute(tmp_path: Path) -> None:
    pki = make_pki(tmp_path / "pki")
    (tmp_path / "ca.crt").write_bytes(pki.ca_cert.read_bytes())
    (tmp_path / "token").write_text("first")
    env = {"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"}
    clock = Clock()
    access = in_cluster_access(env, tmp_path, clock)
    (tmp_path / "token").write_text("second")  # the kubelet rotated it

    clock.now += 59
    assert token(access) == "bearer first"
    clock.now += 2
    assert token(access) == "bearer second"


def test_a_token_file_gone_mid_rotation_keeps_the_last_token(tmp_path: Path) -> None:
    (tmp_path / "token").write_text("first")
    access = load_access(kubeconfig(tmp_path / "k", {"tokenFile": "token"}))
    (tmp_path / "token").unlink()
    access.renewal.refused()

    assert token(access) == "Bearer first"
    (tmp_path / "token").write_text("second")
    access.renewal.refused()
    assert token(access) == "Bearer second"


def test_an_exec_token_is_cached_until_shortly_before_it_expires(tmp_path: Path) -> None:
    clock = Clock()
    access = load_access(kubeconfig(tmp_path / "k", exec_user(tmp_path, "100")), clock=clock)

    clock.now += 85  # expiry in 100 s, less the 10 s margin
    assert token(access) == "Bearer t1"
    clock.now += 10
    assert token(access) == "Bearer t2" and runs(tmp_path) == 2


def test_an_exec_token_without_expiry_is_kept_until_a_401(tmp_path: Path) -> None:
    access = load_access(kubeconfig(tmp_path / "k", exec_user(tmp_path, "-")))
    assert token(access) == token(access) == "Bearer t1"

    access.renewal.refused()

    assert token(access) == "Bearer t2" and runs(tmp_path) == 2


def test_threads_due_at_once_run_the_plugin_once(tmp_path: Path) -> None:
    access = load_access(kubeconfig(tmp_path / "k", exec_user(tmp_path, "-")))
    access.renewal.refused()
    threads = [threading.Thread(target=token, args=(access,)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    assert runs(tmp_path) == 2


def pems(directory: Path, pki: Pki, user: str) -> Path:
    directory.mkdir()
    cert, key = client_cert(pki, user, ())
    (directory / "tls.crt").write_bytes(cert)
    (directory / "tls.key").write_bytes(key)
    return directory


def test_an_exec_client_certificate_renewed_gets_a_new_connection_pool(tmp_path: Path) -> None:
    pki = make_pki(tmp_path / "pki")
    first = pems(tmp_path / "first", pki, "jane")
    access = load_access(kubeconfig(tmp_path / "k", exec_user(tmp_path, "-", str(first))))
    configuration, pool = access.api.configuration, access.api.rest_client
    assert Path(configuration.cert_file).read_bytes() == (first / "tls.crt").read_bytes()

    second = pems(tmp_path / "second", pki, "joe")
    for name in ("tls.crt", "tls.key"):  # the plugin hands out a new certificate
        (first / name).write_bytes((second / name).read_bytes())
    access.renewal.refused()
    access.renewal.renew_if_due(access.api)

    assert Path(configuration.cert_file).read_bytes() == (first / "tls.crt").read_bytes()
    assert access.api.rest_client is not pool
