"""``enrich: [changes]``: the likely cause, ranked from what the API answers, and its bounds."""

from __future__ import annotations

from typing import Any

from notifier.enrichment.attaching import with_context
from notifier.enrichment.changes import Changes
from notifier.enrichment.config import ChangesConfig, EnrichmentConfig
from notifier.enrichment.context import Context
from notifier.enrichment.fetching import ContextFetcher
from notifier.enrichment.finding import ChangeFinder
from notifier.enrichment.reads import METADATA_ONLY
from notifier.enrichment.redaction import Redactor
from notifier.enrichment.telling import change_fields
from notifier.kinds.registry import KINDS
from notifier.queue.rate_limiters import TokenBucket
from notifier.sinks import lines
from notifier.sinks.slack.blocks import context_blocks
from notifier.sinks.webhook.payload import payload_of
from notifier.source.client import ApiError
from tests.unit.enrichment.changes_fixtures import (
    CM_PATH,
    NODE_PATH,
    NOW,
    POD_PATH,
    SECRET_PATH,
    config_map,
    container,
    deployment,
    node,
    pod,
    replica_set,
    stamp,
    world,
)
from tests.unit.enrichment.fakes import FakeApi, request


def _finder(**settings: Any) -> ChangeFinder:
    config = ChangesConfig.model_validate(settings)
    return ChangeFinder(config, Redactor.build(()), clock=lambda: NOW)


def _find(api: FakeApi, finder: ChangeFinder | None = None) -> Changes:
    def get(path: str, query: dict[str, str], most: int, accept: str | None) -> bytes:
        return api.get_bounded(path, query, timeout=1.0, max_bytes=most, accept=accept)

    return (finder or _finder()).find(request(parts=("changes",)), get)


def test_a_rollout_to_a_new_image_is_the_likely_cause_with_its_revision_time_and_manager() -> None:
    changes = _find(FakeApi(world()))
    assert changes.likely_cause == (
        "rollout of Deployment/web to revision 2, 42s before, by kubectl (kubectl-set): "
        "image of web shop:1 -> shop:2"
    )
    assert changes.rollout is not None and changes.rollout.at == stamp(42)
    blast = changes.blast_radius
    assert blast is not None
    assert (blast.others, blast.state, blast.pods) == (2, "CrashLoopBackOff", 4)
    assert changes.requests == 8  # pod, ReplicaSet, Deployment, its ReplicaSets, ConfigMap, node,
    # evictions, the owner's Pods


def test_a_configmap_edit_names_the_keys_its_manager_changed_and_never_reads_values() -> None:
    edited = config_map([("kubectl-create", 7200, ["a"]), ("kubectl-edit", 30, ["b"])])
    old_rollout = {"items": [replica_set("web-2", "rs-2", 2, "shop:2", 86400)]}
    api = FakeApi(world(**{CM_PATH: edited, "/apis/apps/v1/namespaces/shop/replicasets":
                           old_rollout}))  # fmt: skip
    changes = _find(api)
    assert changes.likely_cause == (
        "ConfigMap app-config changed 30s before, by kubectl (kubectl-edit): keys b"
    )
    assert changes.rollout is None
    assert api.accepted[api.paths().index(CM_PATH)] == METADATA_ONLY


def test_a_change_outside_the_window_is_not_blamed() -> None:
    changes = _find(FakeApi(world()), _finder(window="30s"))
    assert changes.rollout is None
    assert changes.likely_cause == "no change found in the last 30s"


def test_a_pod_with_nothing_changed_says_so() -> None:
    quiet = {"items": [replica_set("web-2", "rs-2", 2, "shop:2", 86400)]}
    changes = _find(FakeApi(world(**{"/apis/apps/v1/namespaces/shop/replicasets": quiet})))
    assert changes.likely_cause == "no change found in the last 1h"


def test_secrets_are_not_looked_at_unless_allowed_and_then_only_their_metadata() -> None:
    api = FakeApi(world())
    changes = _find(api)
    assert SECRET_PATH not in api.paths()
    assert "Secrets read (db) not looked at: enrichment.changes.secrets is off" in changes.notes
    secret = config_map([("vault-injector", 20, ["pw"])])
    api = FakeApi(world(**{SECRET_PATH: secret}))
    changes = _find(api, _finder(secrets=True))
    assert api.accepted[api.paths().index(SECRET_PATH)] == METADATA_ONLY
    assert [(c.kind, c.keys) for c in changes.configs] == [("Secret", ("pw",))]


def test_node_pressure_then_an_oom_kill_then_a_pull_error_are_ranked_in_that_order() -> None:
    quiet = {"items": [replica_set("web-2", "rs-2", 2, "shop:2", 86400)]}
    rs_list = "/apis/apps/v1/namespaces/shop/replicasets"
    oom = pod("CrashLoopBackOff", last={"terminated": {"reason": "OOMKilled", "exitCode": 137}},
              limits={"memory": "64Mi"})  # fmt: skip
    pressed = world(**{rs_list: quiet, POD_PATH: oom, NODE_PATH: node(("MemoryPressure",))})
    assert _find(FakeApi(pressed)).likely_cause == "Node node-a: MemoryPressure"
    assert _find(FakeApi(world(**{rs_list: quiet, POD_PATH: oom}))).likely_cause == (
        "web OOMKilled (memory limit 64Mi)"
    )
    pull = pod("ImagePullBackOff", message='Back-off pulling image "shop:3": not found')
    assert _find(FakeApi(world(**{rs_list: quiet, POD_PATH: pull}))).likely_cause == (
        'image of web cannot be pulled (ImagePullBackOff): Back-off pulling image "shop:3": '
        "not found"
    )


def test_requests_per_notification_are_capped_and_what_was_skipped_is_said() -> None:
    api = FakeApi(world())
    changes = _find(api, _finder(requests=4))
    assert len(api.asked) == 4 and changes.requests == 4
    assert any("skipped: 4 requests made already" in note for note in changes.notes)


def test_a_wave_of_pods_shares_the_owner_reads() -> None:
    api = FakeApi(world())
    finder = _finder()
    first, second = _find(api, finder), _find(api, finder)
    assert (first.requests, second.requests) == (8, 1)  # only the Pod itself again


def test_hostile_names_are_escaped_for_slack_and_no_value_is_shown() -> None:
    hostile = config_map([("<!channel>\x1b[31m", 10, ["<@U123>", "key"])])
    rs_list = "/apis/apps/v1/namespaces/shop/replicasets"
    quiet = {"items": [replica_set("web-2", "rs-2", 2, "shop:2", 86400)]}
    changes = _find(FakeApi(world(**{CM_PATH: hostile, rs_list: quiet})))
    text = str(context_blocks(with_context({}, Context(changes=changes))["context"]))
    assert "<!channel>" not in text and "<@U123>" not in text and "\x1b" not in text
    assert "&lt;!channel&gt;" in text
    fields = str(change_fields(changes))
    assert "fast" not in fields  # MODE's literal value


def test_a_rollout_tells_env_sources_but_never_literal_values() -> None:
    before = replica_set("web-1", "rs-1", 1, "shop:2", 86400)
    after = replica_set("web-2", "rs-2", 2, "shop:2", 42)
    env = after["spec"]["template"]["spec"]["containers"][0]["env"]
    env[0]["value"] = "secret-literal-value"
    rs_list = "/apis/apps/v1/namespaces/shop/replicasets"
    changes = _find(FakeApi(world(**{rs_list: {"items": [before, after]}})))
    assert changes.likely_cause.endswith("env of web: MODE: literal value changed")
    assert "secret-literal-value" not in str(change_fields(changes))
    assert "fast" not in str(change_fields(changes))


def test_a_configmap_created_before_the_pod_is_no_change_for_it_but_one_created_after_is() -> None:
    rs_list = "/apis/apps/v1/namespaces/shop/replicasets"
    quiet = {"items": [replica_set("web-2", "rs-2", 2, "shop:2", 86400)]}
    created = config_map([("helm", 600, ["a"])], created=600)
    waited = world(**{CM_PATH: created, rs_list: quiet, POD_PATH: pod(age=900)})
    assert _find(FakeApi(waited)).likely_cause == (
        "ConfigMap app-config created 600s before, by Helm: keys a"
    )
    younger = world(**{CM_PATH: created, rs_list: quiet, POD_PATH: pod(age=60)})
    assert _find(FakeApi(younger)).likely_cause == "no change found in the last 1h"


def test_slack_gets_a_likely_cause_context_line_and_the_webhook_a_changes_object() -> None:
    changes = _find(FakeApi(world()))
    facts = with_context({"summary": "web-1 is CrashLoopBackOff"}, Context(changes=changes))
    cause = context_blocks(facts["context"])[0]["elements"][0]["text"]
    assert cause.startswith("*Likely cause:* rollout of Deployment/web to revision 2")
    assert payload_of(facts)["context"]["changes"]["likely_cause"] == changes.likely_cause
    assert f"Likely cause: {changes.likely_cause}" in lines.context_lines(facts)


def test_the_fetcher_attaches_changes_and_says_why_when_the_pod_cannot_be_read() -> None:
    settings = EnrichmentConfig()
    bucket = TokenBucket(settings.requests_per_second, settings.burst, lambda: 100.0)

    def fetcher(api: FakeApi) -> ContextFetcher:
        return ContextFetcher(
            api,  # type: ignore[arg-type]
            settings,
            bucket=bucket,
            kinds=KINDS,
            clock=lambda: 100.0,
            wall=lambda: NOW,
        )

    context = fetcher(FakeApi(world())).fetch(request(parts=("changes",)), deadline=110.0)
    assert context.changes is not None and context.changes.likely_cause.startswith("rollout of")
    refused = FakeApi({POD_PATH: ApiError(403, "Forbidden", "pods is forbidden", None)})
    context = fetcher(refused).fetch(request(parts=("changes",)), deadline=110.0)
    assert context.changes is None
    [problem] = context.problems
    assert problem.startswith("changes: forbidden (needs get on pods, nodes and the workloads;")


def test_a_statefulset_rollout_is_read_from_its_controller_revisions() -> None:
    def revision(number: int, image: str, age: float) -> dict[str, Any]:
        template = {"spec": {"containers": [container(image)]}, "$patch": "replace"}
        owner = {"kind": "StatefulSet", "name": "db", "uid": "sts-1", "controller": True}
        meta = {"name": f"db-{number}", "creationTimestamp": stamp(age), "ownerReferences": [owner]}
        return {"metadata": meta, "revision": number, "data": {"spec": {"template": template}}}

    sts = deployment("helm", written=25)
    sts["metadata"].update(name="db", uid="sts-1")
    member = pod()
    member["metadata"]["ownerReferences"] = [
        {"kind": "StatefulSet", "name": "db", "uid": "sts-1", "controller": True}
    ]
    api = FakeApi(world(**{
        POD_PATH: member,
        "/apis/apps/v1/namespaces/shop/statefulsets/db": sts,
        "/apis/apps/v1/namespaces/shop/controllerrevisions": {
            "items": [revision(1, "db:15", 86400), revision(2, "db:16", 20)]},
    }))  # fmt: skip
    assert _find(api).likely_cause == (
        "rollout of StatefulSet/db to revision 2, 20s before, by Helm: image of web db:15 -> db:16"
    )
