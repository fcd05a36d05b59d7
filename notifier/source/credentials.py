"""Where the API server is and how to trust and authenticate to it, as kubectl finds out.

``load_access`` reads ``--kubeconfig``, else ``$KUBECONFIG`` (a list of
files, merged as kubectl merges them: the first file to name a cluster,
user, context or current-context wins), else ``~/.kube/config``, else, in a
Pod, the service account (``in_cluster_access``). What a kubeconfig user
may hold: client certificates (files or data), ``token``, ``tokenFile``,
``username``/``password`` and ``exec`` plugins. The deprecated
``auth-provider`` entries are refused with a clear error: the providers
themselves replaced them with exec plugins.

Every problem is a ``CredentialsError`` naming the file and the entry.
Relative paths in a kubeconfig are relative to that file, as in kubectl.
"""

from __future__ import annotations

import base64
import binascii
import os
import ssl
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from notifier.source.auth import (
    Auth,
    BasicAuth,
    BearerToken,
    ExecPlugin,
    NoAuth,
    TokenFile,
)

SERVICE_ACCOUNT_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")


class CredentialsError(Exception):
    """No usable way to reach the API server; the message says where and why."""


@dataclass(frozen=True)
class ClusterAccess:
    server: str  # https://host:port, no trailing slash
    tls: ssl.SSLContext
    auth: Auth
    server_hostname: str | None = None  # tls-server-name: the name the certificate is checked for


def load_access(kubeconfig: str | None = None, context: str | None = None) -> ClusterAccess:
    files = _kubeconfig_files(kubeconfig)
    if files is None:
        return in_cluster_access()
    return _Kubeconfig(files).access(context)


def in_cluster_access(
    env: Mapping[str, str] = os.environ, account_dir: Path = SERVICE_ACCOUNT_DIR
) -> ClusterAccess:
    host, port = env.get("KUBERNETES_SERVICE_HOST"), env.get("KUBERNETES_SERVICE_PORT")
    if not host or not port:
        raise CredentialsError(
            "no kubeconfig found and not in a Pod (KUBERNETES_SERVICE_HOST/PORT are unset): "
            "pass --kubeconfig"
        )
    ca_file = account_dir / "ca.crt"
    if not ca_file.is_file():
        raise CredentialsError(f"in a Pod, but the service account CA {ca_file} is missing")
    host = f"[{host}]" if ":" in host else host
    return ClusterAccess(
        server=f"https://{host}:{port}",
        tls=_tls(ca_file=str(ca_file), ca_data=None, insecure=False, where="in-cluster"),
        auth=TokenFile(account_dir / "token"),
    )


def _kubeconfig_files(explicit: str | None) -> list[Path] | None:
    if explicit:
        return [Path(explicit)]
    listed = [Path(p) for p in os.environ.get("KUBECONFIG", "").split(os.pathsep) if p]
    if listed:
        present = [path for path in listed if path.exists()]
        if not present:
            raise CredentialsError(f"none of the files in $KUBECONFIG exist: {listed}")
        return present
    default = Path.home() / ".kube" / "config"
    if default.exists() or "KUBERNETES_SERVICE_HOST" not in os.environ:
        return [default]
    return None


@dataclass
class _Entry:
    """A named cluster, user or context, and the file it came from (for relative paths)."""

    body: dict[str, Any]
    source: Path


class _Kubeconfig:
    def __init__(self, files: list[Path]) -> None:
        self._files = files
        self._named: dict[str, dict[str, _Entry]] = {"clusters": {}, "users": {}, "contexts": {}}
        self._current = ""
        for path in files:
            self._merge(path, _read_yaml(path))

    @property
    def _where(self) -> str:
        return "kubeconfig " + ", ".join(str(path) for path in self._files)

    def access(self, context_name: str | None) -> ClusterAccess:
        name = context_name or self._current
        if not name:
            raise CredentialsError(f"{self._where}: no current-context and no --context given")
        context = self._lookup("contexts", name).body
        cluster = self._lookup("clusters", str(context.get("cluster", "")))
        user_name = context.get("user")
        user = self._lookup("users", str(user_name)) if user_name else _Entry({}, cluster.source)
        return self._build(cluster, user, name)

    def _merge(self, path: Path, data: Any) -> None:
        if data is None:
            return
        if not isinstance(data, dict):
            raise CredentialsError(f"kubeconfig {path}: not a mapping")
        self._current = self._current or str(data.get("current-context") or "")
        for section, entries in self._named.items():
            for item in data.get(section) or []:
                if not isinstance(item, dict) or "name" not in item:
                    raise CredentialsError(f"kubeconfig {path}: an entry of {section} has no name")
                body = item.get(section.removesuffix("s")) or {}
                if not isinstance(body, dict):
                    raise CredentialsError(f"kubeconfig {path}: {section} {item['name']!r}")
                entries.setdefault(str(item["name"]), _Entry(body, path))

    def _lookup(self, section: str, name: str) -> _Entry:
        entries = self._named[section]
        if name not in entries:
            known = ", ".join(sorted(entries)) or "none"
            kind = section.removesuffix("s")
            raise CredentialsError(f"{self._where}: no {kind} {name!r} (defined: {known})")
        return entries[name]

    def _build(self, cluster: _Entry, user: _Entry, context: str) -> ClusterAccess:
        where = f"{cluster.source}: context {context!r}"
        server = str(cluster.body.get("server", "")).rstrip("/")
        if not server.startswith(("https://", "http://")):
            raise CredentialsError(f"{where}: the cluster has no http(s) server URL")
        if cluster.body.get("proxy-url"):
            raise CredentialsError(f"{where}: proxy-url is not supported")
        tls = _tls(
            ca_file=_path(cluster, "certificate-authority"),
            ca_data=_data(cluster, "certificate-authority-data", where),
            insecure=bool(cluster.body.get("insecure-skip-tls-verify")),
            where=where,
        )
        _load_client_certificate(tls, user, where)
        hostname = cluster.body.get("tls-server-name")
        return ClusterAccess(server, tls, _auth(user, where), str(hostname) if hostname else None)


def _auth(user: _Entry, where: str) -> Auth:
    body = user.body
    if body.get("auth-provider"):
        provider = body["auth-provider"].get("name", "?")
        raise CredentialsError(
            f"{where}: auth-provider {provider!r} is not supported; use the provider's "
            "exec credential plugin (kubectl has required one since 1.26)"
        )
    if body.get("exec"):
        return _exec_plugin(body["exec"], user.source, where)
    if body.get("token"):
        return BearerToken(str(body["token"]))
    if body.get("tokenFile"):
        return TokenFile(_resolve(user.source, str(body["tokenFile"])))
    if body.get("username"):
        return BasicAuth(str(body["username"]), str(body.get("password", "")))
    return NoAuth()


def _exec_plugin(spec: Any, source: Path, where: str) -> ExecPlugin:
    if not isinstance(spec, dict) or not spec.get("command"):
        raise CredentialsError(f"{where}: exec has no command")
    command = str(spec["command"])
    if os.sep in command and not os.path.isabs(command):
        command = str(_resolve(source, command))  # kubectl: relative to the kubeconfig
    env = {str(e["name"]): str(e["value"]) for e in spec.get("env") or []}
    return ExecPlugin(
        command,
        [str(arg) for arg in spec.get("args") or []],
        env,
        str(spec.get("apiVersion", "client.authentication.k8s.io/v1")),
        install_hint=str(spec.get("installHint", "")).strip(),
    )


def _tls(
    *, ca_file: str | None, ca_data: bytes | None, insecure: bool, where: str
) -> ssl.SSLContext:
    context = ssl.create_default_context()
    if insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    try:
        if ca_file or ca_data:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # only the cluster's CA
        if ca_file:
            context.load_verify_locations(cafile=ca_file)
        if ca_data:
            context.load_verify_locations(cadata=ca_data.decode("ascii", errors="replace"))
    except (OSError, ssl.SSLError) as err:
        raise CredentialsError(f"{where}: cannot load the certificate authority: {err}") from None
    return context


def _load_client_certificate(context: ssl.SSLContext, user: _Entry, where: str) -> None:
    cert = _pem(user, "client-certificate", where)
    key = _pem(user, "client-key", where)
    if cert is None and key is None:
        return
    if cert is None or key is None:
        raise CredentialsError(f"{where}: a client certificate needs both a certificate and a key")
    # ssl loads certificate chains only from files: a private directory, removed at once.
    with tempfile.TemporaryDirectory(prefix="kn-client-cert-") as private:
        cert_path, key_path = Path(private, "tls.crt"), Path(private, "tls.key")
        for path, content in ((cert_path, cert), (key_path, key)):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                os.write(fd, content)
            finally:
                os.close(fd)
        try:
            context.load_cert_chain(cert_path, key_path)
        except (OSError, ssl.SSLError) as err:
            raise CredentialsError(f"{where}: cannot load the client certificate: {err}") from None


def _pem(user: _Entry, field: str, where: str) -> bytes | None:
    data = _data(user, f"{field}-data", where)
    if data is not None:
        return data
    path = _path(user, field)
    if path is None:
        return None
    try:
        return Path(path).read_bytes()
    except OSError as err:
        raise CredentialsError(f"{where}: cannot read {field} {path}: {err}") from None


def _data(entry: _Entry, field: str, where: str) -> bytes | None:
    value = entry.body.get(field)
    if not value:
        return None
    try:
        return base64.b64decode(str(value), validate=True)
    except (binascii.Error, ValueError):
        raise CredentialsError(f"{where}: {field} is not base64") from None


def _path(entry: _Entry, field: str) -> str | None:
    value = entry.body.get(field)
    return str(_resolve(entry.source, str(value))) if value else None


def _resolve(source: Path, value: str) -> Path:
    path = Path(os.path.expanduser(value))
    return path if path.is_absolute() else source.parent / path


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise CredentialsError(f"cannot read kubeconfig {path}: {err}") from None
    except yaml.YAMLError as err:
        raise CredentialsError(f"kubeconfig {path} is not valid YAML: {err}") from None
