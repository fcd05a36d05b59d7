"""Context enrichment in the running service: the ``Enricher``, its reloads, its RBAC check.

The chart grants ``pods/log`` (and events) only when a rule asks for them, so
a rule added by a reload may lack the access: that is said in the log at
start and at the reload (a SelfSubjectAccessReview per permission), and each
message of that rule says which part was refused. Neither stops the service.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence

import urllib3

from notifier.config.loading import LoadedConfig
from notifier.config.model import Config
from notifier.config.reloading import Staged, Stager
from notifier.enrichment.access import REVIEWED
from notifier.enrichment.enricher import Enricher
from notifier.source.client import ApiError, RawClient

log = logging.getLogger(__name__)

_REVIEWS = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"


def enrichment_stager(enricher: Enricher, client: RawClient) -> Stager:
    """New ``enrichment:`` settings take effect at the swap; new parts are access-checked."""

    def stage(previous: LoadedConfig, candidate: LoadedConfig) -> Staged:
        old, new = previous.config, candidate.config
        asked = set(new.context_parts()) - set(old.context_parts())
        if asked:
            warn_missing_access(client, new, parts=sorted(asked))
        if old.enrichment == new.enrichment:
            return Staged(apply=lambda: None)
        return Staged(apply=lambda: enricher.configure(new.enrichment))

    return stage


def warn_missing_access(client: RawClient, config: Config, parts: Sequence[str] = ()) -> None:
    """Log each permission a rule's ``enrich:`` needs and this service account lacks."""
    asked = config.context_parts()
    scopes = config.watch.namespaces[:5] or [""]
    for part in parts or sorted(asked):
        if part not in REVIEWED:
            continue
        verb, resource, subresource = REVIEWED[part]
        denied = [
            scope
            for scope in scopes
            if _allowed(client, verb, resource, subresource, scope) is False
        ]
        if denied:
            where = ", ".join(repr(s) for s in denied) if denied != [""] else "cluster-wide"
            what = f"{resource}/{subresource}" if subresource else resource
            log.warning(
                "rules %s ask for %s, but this service account may not %s %s (%s): their "
                "messages will say so. With the chart, list the rules under config.rules so it "
                "grants the access, or grant it yourself",
                ", ".join(asked.get(part, [])), part, verb, what, where,
            )  # fmt: skip


def _allowed(client: RawClient, verb: str, resource: str, sub: str, namespace: str) -> bool | None:
    """The API server's answer; None when it could not be asked (then nothing is said)."""
    attributes = {"verb": verb, "resource": resource, "subresource": sub, "namespace": namespace}
    body = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": attributes},
    }
    try:
        answer = json.loads(client.send("POST", _REVIEWS, body=body))
    except (ApiError, urllib3.exceptions.HTTPError, OSError, ValueError) as err:
        log.debug("access review for %s/%s not answered: %s", resource, sub, err)
        return None
    return bool(answer.get("status", {}).get("allowed"))


def build_enricher(client: RawClient, config: Config) -> Enricher:
    """The service's ``Enricher``, after saying what access its rules lack."""
    if config.context_parts():
        warn_missing_access(client, config)
    return Enricher(client.sibling(), config.enrichment)
