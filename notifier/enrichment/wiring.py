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
from functools import partial

import urllib3

from notifier.config.loading import LoadedConfig
from notifier.config.model import Config
from notifier.enrichment.access import REVIEWED, SECRETS_REVIEWED
from notifier.enrichment.enricher import Enricher
from notifier.kinds.registry import Kinds
from notifier.reload.holder import Staged, Stager
from notifier.source.client import ApiError, RawClient

log = logging.getLogger(__name__)


def enrichment_stager(enricher: Enricher, client: RawClient) -> Stager:
    """New ``enrichment:`` settings take effect at the swap; new parts are access-checked."""

    def stage(previous: LoadedConfig, candidate: LoadedConfig) -> Staged:
        old, new = previous.config, candidate.config
        asked = set(new.context_parts()) - set(old.context_parts())
        if asked:
            warn_missing_access(client, new, parts=sorted(asked))
        if old.enrichment == new.enrichment and previous.kinds == candidate.kinds:
            return Staged(apply=lambda: None)
        return Staged(apply=lambda: enricher.configure(new.enrichment, kinds=candidate.kinds))

    return stage


def warn_missing_access(client: RawClient, config: Config, parts: Sequence[str] = ()) -> None:
    """Log each permission a rule's ``enrich:`` needs and this service account lacks."""
    for line in missing_access(client, config, parts):
        log.warning(
            "%s: their messages will say so. With the chart, list the rules under config.rules "
            "so it grants the access, or grant it yourself",
            line,
        )


def missing_access(
    client: RawClient, config: Config, parts: Sequence[str] = (), *, account: str | None = None
) -> list[str]:
    """What the rules' ``enrich:`` needs and ``account`` (or we) may not do, one line each.

    ``account`` ("namespace/name" of a service account) is asked about with a
    SubjectAccessReview, which needs ``create`` on subjectaccessreviews; without
    it, we ask about ourselves (SelfSubjectAccessReview, allowed to everyone).
    """
    asked = config.context_parts()
    scopes = config.watch.namespaces[:5] or [""]
    who = f"service account {account}" if account else "this service account"
    lines = []
    for part in [p for p in (parts or sorted(asked)) if p in REVIEWED]:
        reviews = REVIEWED[part]
        if part == "changes" and config.enrichment.changes.secrets:
            reviews = (*reviews, SECRETS_REVIEWED)
        for verb, resource, subresource, group in reviews:
            review = partial(
                _allowed, client, verb, resource, subresource, group=group, account=account
            )
            denied = [scope for scope in scopes if review(scope) is False]
            if denied:
                where = ", ".join(repr(s) for s in denied) if denied != [""] else "cluster-wide"
                what = f"{resource}/{subresource}" if subresource else resource
                rules = ", ".join(asked.get(part, []))
                lines.append(
                    f"rules {rules} ask for {part}, but {who} may not {verb} {what} ({where})"
                )
    return lines


def _allowed(
    client: RawClient,
    verb: str,
    resource: str,
    sub: str,
    namespace: str,
    *,
    group: str,
    account: str | None,
) -> bool | None:
    """The API server's answer; None when it could not be asked (then nothing is said)."""
    attributes = {"verb": verb, "resource": resource, "subresource": sub, "namespace": namespace,
                  "group": group}  # fmt: skip
    spec: dict[str, object] = {"resourceAttributes": attributes}
    kind = "SelfSubjectAccessReview"
    if account is not None:
        home = account.split("/", 1)[0]
        kind = "SubjectAccessReview"
        spec["user"] = f"system:serviceaccount:{account.replace('/', ':', 1)}"
        spec["groups"] = ["system:serviceaccounts", f"system:serviceaccounts:{home}",
                          "system:authenticated"]  # fmt: skip
    body = {"apiVersion": "authorization.k8s.io/v1", "kind": kind, "spec": spec}
    path = f"/apis/authorization.k8s.io/v1/{kind.lower()}s"
    try:
        answer = json.loads(client.send("POST", path, body=body))
    except (ApiError, urllib3.exceptions.HTTPError, OSError, ValueError) as err:
        log.debug("access review for %s/%s not answered: %s", resource, sub, err)
        return None
    return bool(answer.get("status", {}).get("allowed"))


def build_enricher(client: RawClient, config: Config, kinds: Kinds) -> Enricher:
    """The service's ``Enricher``, after saying what access its rules lack."""
    if config.context_parts():
        warn_missing_access(client, config)
    return Enricher(client.sibling(), config.enrichment, kinds=kinds)
