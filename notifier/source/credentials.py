"""Where the API server is and who we are to it, loaded by the ``kubernetes`` package.

``load_access`` reads ``--kubeconfig`` (a file, or a list as in
``$KUBECONFIG``), else ``$KUBECONFIG`` (files merged: the first to name a
cluster, user or context wins; missing files are skipped), else
``~/.kube/config``, else, in a Pod, the service account.
``kubernetes.config`` reads every field it supports: client certificates,
``token``/``tokenFile``, basic auth, exec plugins (tokens or client
certificates), the ``oidc`` auth-provider, ``proxy-url``,
``tls-server-name`` and ``insecure-skip-tls-verify``; its REST client
honours ``HTTPS_PROXY``/``NO_PROXY``. ``renewal`` keeps the credentials fresh.

Where the package differs from kubectl, a few lines here follow kubectl:
- the first file of a list to set ``current-context`` wins (the package takes the last);
- impersonation (``as``, ``as-uid``, ``as-groups``, ``as-user-extra``) becomes
  the ``Impersonate-*`` headers of every request (the package ignores it);
- a ``proxy-url`` is used for the cluster whatever ``NO_PROXY`` says;
- the ``gcp`` and ``azure`` auth-providers, removed from kubectl in 1.26, are
  refused with what to use instead (the package would need google-auth, or
  silently send no credentials);
- an exec plugin that yields nothing at start is an error naming it, with
  its ``installHint`` (the package only logs its failure).

Every problem is a ``CredentialsError`` naming the file(s) and what is wrong.
"""

from __future__ import annotations

import os
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import yaml
from kubernetes.client import ApiClient, Configuration
from kubernetes.config import ConfigException
from kubernetes.config.incluster_config import InClusterConfigLoader
from kubernetes.config.kube_config import KubeConfigLoader, KubeConfigMerger

from notifier.source.renewal import Loader, Renewal

SERVICE_ACCOUNT_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")
POOL_SIZE = 16  # a watch holds a connection for minutes: one per informer, lease, reloader
USER_AGENT = "kube-notifier"
REMOVED_PROVIDERS = {
    "gcp": "gke-gcloud-auth-plugin",
    "azure": "kubelogin (https://azure.github.io/kubelogin/)",
}
Headers = tuple[tuple[str, str], ...]


class CredentialsError(Exception):
    """No usable way to reach the API server; the message says where and why."""


@dataclass(frozen=True)
class ClusterAccess:
    """The package's API client for the cluster, how it stays fresh, and our extra headers."""

    api: ApiClient
    renewal: Renewal
    impersonation: Headers = ()

    @property
    def server(self) -> str:
        return str(self.api.configuration.host)


def load_access(
    kubeconfig: str | None = None,
    context: str | None = None,
    *,
    env: Mapping[str, str] = os.environ,
    account_dir: Path = SERVICE_ACCOUNT_DIR,
    clock: Callable[[], float] = time.monotonic,
) -> ClusterAccess:
    paths = _kubeconfig_paths(kubeconfig, env)
    if paths is None:
        return in_cluster_access(env, account_dir, clock)
    where = "kubeconfig " + ", ".join(paths)
    try:
        return _kubeconfig_access(paths, context, where, clock)
    except ConfigException as err:
        raise CredentialsError(f"{where}: {err}") from None
    except yaml.YAMLError as err:
        raise CredentialsError(f"{where} is not valid YAML: {err}") from None
    except OSError as err:
        raise CredentialsError(f"{where}: cannot read {err.filename}: {err.strerror}") from None


def in_cluster_access(
    env: Mapping[str, str] = os.environ,
    account_dir: Path = SERVICE_ACCOUNT_DIR,
    clock: Callable[[], float] = time.monotonic,
) -> ClusterAccess:
    if not env.get("KUBERNETES_SERVICE_HOST") or not env.get("KUBERNETES_SERVICE_PORT"):
        raise CredentialsError(
            "no kubeconfig found and not in a Pod (KUBERNETES_SERVICE_HOST/PORT are unset): "
            "pass --kubeconfig"
        )
    token, ca = account_dir / "token", account_dir / "ca.crt"
    loader = InClusterConfigLoader(str(token), str(ca), try_refresh_token=False, environ=env)  # type: ignore[no-untyped-call]
    try:
        return _access(_renewal(loader, token_file=True, clock=clock))
    except (ConfigException, OSError) as err:
        raise CredentialsError(f"in a Pod, but {account_dir}: {err}") from None


def _kubeconfig_paths(explicit: str | None, env: Mapping[str, str]) -> list[str] | None:
    """The kubeconfig files to merge, or None for the in-cluster service account."""
    listed = explicit or env.get("KUBECONFIG", "")
    if listed:
        paths = [os.path.expanduser(path) for path in listed.split(os.pathsep) if path]
        present = [path for path in paths if os.path.exists(path)]
        if not present:
            raise CredentialsError(f"no kubeconfig: none of {', '.join(paths)} exists")
        return present
    default = Path.home() / ".kube" / "config"
    if default.exists():
        return [str(default)]
    if env.get("KUBERNETES_SERVICE_HOST"):
        return None
    raise CredentialsError(
        f"no kubeconfig: {default} does not exist, $KUBECONFIG is unset and this is not a Pod: "
        "pass --kubeconfig"
    )


def _kubeconfig_access(
    paths: list[str], context: str | None, where: str, clock: Callable[[], float]
) -> ClusterAccess:
    merger = KubeConfigMerger(os.pathsep.join(paths))  # type: ignore[no-untyped-call]
    name = context or _first_current_context(merger)
    if not name:
        raise CredentialsError(f"{where}: no current-context and no --context given")
    loader = KubeConfigLoader(  # type: ignore[no-untyped-call]
        config_dict=merger.config, active_context=name, config_base_path=None
    )
    cluster = loader.current_context["context"]["cluster"]
    user = _user(merger.config, loader.current_context["context"].get("user"))
    _refuse_removed_providers(user, where)
    renewal = _renewal(loader, token_file=bool(user.get("tokenFile")), clock=clock)
    _check_exec_gave_credentials(user, renewal.configuration, where)
    _check_tls(renewal.configuration, where)
    if _cluster(merger.config, cluster).get("proxy-url"):
        renewal.configuration.no_proxy = None  # kubectl: a proxy-url serves every request
    return _access(renewal, _as(user))


def _renewal(loader: Loader, *, token_file: bool, clock: Callable[[], float]) -> Renewal:
    configuration = Configuration()
    configuration.retries = False  # the reflector and the callers retry, with backoff
    configuration.connection_pool_maxsize = POOL_SIZE
    configuration.keep_alive = True  # as client-go: an idle watch through a NAT or proxy lives
    renewal = Renewal(loader, configuration, token_file=token_file, clock=clock)
    renewal.load()
    return renewal


def _access(renewal: Renewal, impersonation: Headers = ()) -> ClusterAccess:
    api = ApiClient(renewal.configuration)
    api.user_agent = USER_AGENT
    return ClusterAccess(api, renewal, impersonation)


def _first_current_context(merger: KubeConfigMerger) -> str:
    for path in merger.paths:
        name = (merger.config_files.get(path) or {}).get("current-context")
        if name:
            return str(name)
    return ""


def _named(config: Any, section: str, name: str | None) -> dict[str, Any]:
    node = config[section].get_with_name(name, safe=True) if name else None
    value = node.value.get(section.removesuffix("s")) if node is not None else None
    return value if isinstance(value, dict) else {}


def _user(config: Any, name: str | None) -> dict[str, Any]:
    return _named(config, "users", name)


def _cluster(config: Any, name: str) -> dict[str, Any]:
    return _named(config, "clusters", name)


def _refuse_removed_providers(user: Mapping[str, Any], where: str) -> None:
    provider = str((user.get("auth-provider") or {}).get("name", ""))
    if provider in REMOVED_PROVIDERS:
        raise CredentialsError(
            f"{where}: the {provider!r} auth-provider was removed from kubectl in 1.26; "
            f"use its exec credential plugin, {REMOVED_PROVIDERS[provider]}"
        )


def _check_exec_gave_credentials(
    user: Mapping[str, Any], configuration: Configuration, where: str
) -> None:
    plugin = user.get("exec") or {}
    if not plugin or configuration.api_key.get("BearerToken") or configuration.cert_file:
        return
    hint = str(plugin.get("installHint", "")).strip()
    raise CredentialsError(
        f"{where}: the exec credential plugin {plugin.get('command')!r} gave no token or "
        f"client certificate (its error is logged above){f'. {hint}' if hint else ''}"
    )


def _check_tls(configuration: Configuration, where: str) -> None:
    """Load the CA and client certificate now: a clear error at start, not TLS failures later."""
    if not str(configuration.host).startswith(("https://", "http://")):
        raise CredentialsError(f"{where}: the cluster has no http(s) server URL")
    cert, key = configuration.cert_file, configuration.key_file
    if bool(cert) != bool(key):
        raise CredentialsError(f"{where}: a client certificate needs both a certificate and a key")
    if not configuration.ssl_ca_cert and not cert:
        return  # none of ours to load: the system's CAs (~15 ms to parse) are not checked here
    try:
        context = ssl.create_default_context(cafile=configuration.ssl_ca_cert)
        if cert:
            context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as err:
        raise CredentialsError(f"{where}: cannot load a CA or client certificate: {err}") from None


def _as(user: Mapping[str, Any]) -> Headers:
    """kubectl's impersonation fields as request headers (one header per group or extra value)."""
    headers = [("Impersonate-User", str(user["as"]))] if user.get("as") else []
    if user.get("as-uid"):
        headers.append(("Impersonate-Uid", str(user["as-uid"])))
    headers += [("Impersonate-Group", str(group)) for group in user.get("as-groups") or []]
    for key, values in (user.get("as-user-extra") or {}).items():
        name = "Impersonate-Extra-" + quote(str(key), safe="!#$&'*+-.^_`|~")
        headers += [(name, str(value)) for value in values or []]
    return tuple(headers)
