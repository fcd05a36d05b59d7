"""What each context part needs from RBAC: said by ``rules check``, in messages and in logs."""

from __future__ import annotations

NEEDS = {
    "logs": "get on pods/log",
    "events": "list on events",
    "owners": "get on the owners' kinds (replicasets, deployments, jobs, ...)",
    "changes": (
        "get on pods, nodes and the workloads; get/list on replicasets, controllerrevisions, "
        "configmaps; list on pods and events (and get on secrets with enrichment.changes.secrets)"
    ),
}
# part -> (verb, resource, subresource, API group): asked of the API server at start and reload
REVIEWED: dict[str, tuple[tuple[str, str, str, str], ...]] = {
    "logs": (("get", "pods", "log", ""),),
    "events": (("list", "events", "", ""),),
    "changes": (
        ("get", "pods", "", ""),
        ("list", "replicasets", "", "apps"),
        ("list", "controllerrevisions", "", "apps"),
        ("get", "configmaps", "", ""),
        ("list", "events", "", ""),
    ),
}
# what ``enrichment.changes.secrets`` adds to what ``changes`` needs
SECRETS_REVIEWED = ("get", "secrets", "", "")
