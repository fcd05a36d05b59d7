"""Load credentials as kubectl does, and check up front that we may list what we watch."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import urllib3.exceptions

from notifier.kinds.registry import Kinds
from notifier.objects import Kind
from notifier.source.client import ApiError, RawClient
from notifier.source.credentials import ClusterAccess, CredentialsError, load_access
from notifier.source.informer import scopes
from notifier.source.namespaces import PATH as NAMESPACES_PATH
from notifier.source.outage import cause
from notifier.source.resources import resource_for

log = logging.getLogger("notifier.service")

FORBIDDEN = 403
NOT_FOUND = 404
UNAUTHORIZED = 401


class KubeAccessError(Exception):
    """We cannot talk to the API server as configured, or may not read what we must."""


def cluster_access(kubeconfig: str | None, context: str | None) -> ClusterAccess:
    """``--kubeconfig``/``KUBECONFIG``/``~/.kube/config``, else the in-cluster service account."""
    try:
        return load_access(kubeconfig, context)
    except CredentialsError as err:
        raise KubeAccessError(f"cannot load Kubernetes credentials: {err}") from err


def check_access(
    client: RawClient,
    kinds: Sequence[Kind],
    namespaces: Sequence[str],
    *,
    namespace_labels: bool = False,
    known: Kinds,
) -> None:
    """List one object of each kind in each scope: a clear error now beats a retry loop later.

    A resource the API server does not serve (a CRD not installed yet) is logged
    with what to install, and not an error: the informer waits for it.

    ``namespace_labels``: a rule selects namespaces by label, so namespaces are
    listed too. Only a refusal (401/403) stops us. An API server that cannot be
    reached right now is the informers' to retry; meanwhile /readyz says not synced.
    """
    resources = [resource_for(kind, kinds=known) for kind in kinds]
    lists = [
        (resource.path(namespace), resource.plural, resource.api.group_version, namespace)
        for resource in resources
        for namespace in scopes(resource, namespaces)
    ]
    if namespace_labels:
        lists.append((NAMESPACES_PATH, "namespaces", "v1", None))
    for path, plural, group, namespace in lists:
        if not _may_list(client, path, plural, group, namespace):
            return


def not_served(plural: str, group: str) -> str:
    """What to do when the API server does not serve a resource we watch."""
    crd = f"{plural}.{group.split('/', maxsplit=1)[0]}"
    return (
        f"the API server does not serve {plural} in {group}: is its "
        f"CustomResourceDefinition installed (kubectl get crd {crd})? Install it, or take "
        "the resource out of watch.resources / watch.kinds; until then it is watched "
        "again with backoff and /readyz says not synced"
    )


def _may_list(client: RawClient, path: str, plural: str, group: str, namespace: str | None) -> bool:
    """True if listing worked (or failed other than by refusal); False if unreachable."""
    try:
        client.get(path, {"limit": "1"})
    except (urllib3.exceptions.HTTPError, OSError) as err:
        log.warning("%s; the informers will retry", failure(client.server, err))
        return False
    except ApiError as err:
        if err.status == NOT_FOUND:  # the cluster may get it later: wait, not ready, and say so
            log.error("%s", not_served(plural, group))
            return True
        if err.status not in (FORBIDDEN, UNAUTHORIZED):
            log.warning("access check for %s: %s; continuing", plural, err)
            return True
        if err.status == UNAUTHORIZED:
            raise KubeAccessError(refused(client.server, err)) from err
        scope = f"in namespace {namespace!r}" if namespace else "cluster-wide"
        raise KubeAccessError(
            f"not allowed to list {plural} ({group}) {scope}: "
            f"{err.message or err.reason}. Grant list and watch on {plural}."
        ) from err
    return True


def refused(server: str, err: ApiError) -> str:
    """A 401: who we are was not accepted, so no RBAC grant can help."""
    said = f" ({err.message})" if err.message else ""
    return (
        f"the API server at {server} refused our credentials (401 Unauthorized){said}: check "
        "that the kubeconfig's token or client certificate has not expired, that its exec "
        "plugin works on its own (kubectl get pods with the same --kubeconfig/--context), "
        "and that the context names the cluster you mean"
    )


def failure(server: str, err: Exception) -> str:
    """One line for a request to the API server that failed, with what to check."""
    if isinstance(err, ApiError):
        if err.status == UNAUTHORIZED:
            return refused(server, err)
        if err.status == FORBIDDEN:
            return f"the API server at {server} does not allow this: {err.message or err.reason}"
        return f"the API server at {server} answered {err}"
    return (
        f"cannot reach the API server at {server}: {cause(err)} (is the cluster up, and do "
        "--kubeconfig/--context name it?)"
    )
