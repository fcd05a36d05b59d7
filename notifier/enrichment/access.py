"""What each context part needs from RBAC: said by ``rules check``, in messages and in logs."""

from __future__ import annotations

NEEDS = {
    "logs": "get on pods/log",
    "events": "list on events",
    "owners": "get on the owners' kinds (replicasets, deployments, jobs, ...)",
}
# part -> (verb, resource, subresource): asked of the API server at start and reload
REVIEWED = {"logs": ("get", "pods", "log"), "events": ("list", "events", "")}
