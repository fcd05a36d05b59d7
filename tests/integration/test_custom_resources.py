"""A custom resource declared in config, watched on the real API server with its CRD installed.

The CustomResourceDefinition is served by kube-apiserver's own
apiextensions server; the test writes the object's status through the
status subresource, as a controller would.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client

from notifier.kinds.config import ResourceSpec
from notifier.kinds.custom import custom_kind
from notifier.kinds.registry import KINDS, Kinds
from notifier.objects import Kind
from tests.controlplane.cluster import ControlPlane
from tests.integration.harness import pipeline
from tests.integration.kube import Kube
from tests.integration.service import ServiceProcess
from tests.support.webhook_server import WebhookServer

pytestmark = pytest.mark.integration

GROUP = "gadgets.kube-notifier.test"


def _crd(plural: str, kind: str) -> dict[str, Any]:
    schema = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{GROUP}"},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {"plural": plural, "singular": plural[:-1], "kind": kind},
            "versions": [{
                "name": "v1", "served": True, "storage": True,
                "schema": {"openAPIV3Schema": schema},
                "subresources": {"status": {}},
            }],
        },
    }  # fmt: skip


def _declare(kind: str, plural: str) -> Kinds:
    spec = ResourceSpec.model_validate(
        {
            "kind": kind, "group": GROUP, "version": "v1", "resource": plural,
            "states": {
                "Ready": {"condition": "Ready"},
                "NotReady": {"condition": "Ready", "status": "False"},
                "Broken": {"field": "status.phase", "equals": "Broken"},
            },
            "message": {"condition": "Ready"},
        }
    )  # fmt: skip
    return KINDS.declaring([custom_kind(spec)])


def _wait_served(custom: client.CustomObjectsApi, ns: str, plural: str) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            custom.list_namespaced_custom_object(GROUP, "v1", ns, plural)
            return
        except client.ApiException:
            assert time.monotonic() < deadline, "the CRD was never served"
            time.sleep(0.1)


def test_a_declared_resource_is_watched_and_its_states_read(control_plane: ControlPlane) -> None:
    suffix = uuid.uuid4().hex[:6]
    plural, kind_name = f"gadgets{suffix}", f"Gadget{suffix.upper()}"
    kube = Kube(control_plane)
    control_plane.kubectl_apply(_crd(plural, kind_name))
    known = _declare(kind_name, plural)
    kind = Kind(kind_name)
    ns = kube.namespace("crd")
    custom = client.CustomObjectsApi(kube.api)
    _wait_served(custom, ns, plural)
    with pipeline(control_plane, kinds=(kind,), namespaces=[ns], known_kinds=known) as pipe:
        pipe.wait_synced()
        body = {"apiVersion": f"{GROUP}/v1", "kind": kind_name, "metadata": {"name": "g1"},
                "spec": {"size": "large", "blob": "x" * 50_000}}  # fmt: skip
        custom.create_namespaced_custom_object(GROUP, "v1", ns, plural, body)
        key = f"{ns}/g1"
        pipe.stage.wait_seen(kind, key)
        ready = {"conditions": [{"type": "Ready", "status": "True", "reason": "Up"}]}
        custom.patch_namespaced_custom_object_status(
            GROUP, "v1", ns, plural, "g1", {"status": ready}
        )
        pipe.stage.wait_seen(kind, key, count=2)
        jammed = [{"type": "Ready", "status": "False", "reason": "Jammed"}]
        down = {"phase": "Broken", "conditions": jammed}
        custom.patch_namespaced_custom_object_status(
            GROUP, "v1", ns, plural, "g1", {"status": down}
        )
        pipe.stage.wait_seen(kind, key, count=3)
        pipe.wait_idle()
        history = pipe.stage.by_key[(kind, key)]
    assert [sorted(t.entered) for t in history] == [[], ["Ready"], ["Broken", "NotReady"]]
    assert history[-1].left == {"Ready"}
    assert "spec" not in type(history[-1].new).__struct_fields__  # the spec is never kept


def test_the_service_waits_for_a_crd_not_installed_yet_and_says_what_to_install(
    control_plane: ControlPlane, tmp_path: Path
) -> None:
    """A CRD installed after kube-notifier (same Helm release, say) must not crash-loop it."""
    suffix = uuid.uuid4().hex[:6]
    plural, kind_name = f"doohickeys{suffix}", f"Doohickey{suffix.upper()}"
    config = tmp_path / "config.yaml"
    config.write_text(
        "watch:\n  kinds: [Service]\n  resources:\n"
        f"    - {{kind: {kind_name}, group: {GROUP}, version: v1, resource: {plural},\n"
        "       states: {Ready: {condition: Ready}}}\n"
        "sinks: [{name: console, type: console}]\n"
    )
    service = ServiceProcess(config, control_plane.kubeconfig, "none").start()
    try:
        service.wait_for_output(lambda out: f"kubectl get crd {plural}.{GROUP}" in out, 30)
        deadline = time.monotonic() + 30
        while _health(service) != (200, 503):  # alive, not ready: waiting for the resource
            assert time.monotonic() < deadline, service.output()
            time.sleep(0.1)
        control_plane.kubectl_apply(_crd(plural, kind_name))
        synced = f'kube_notifier_informer_synced{{kind="{kind_name}"}} 1.0'
        deadline = time.monotonic() + 60  # the informer's next try, after its backoff
        while synced not in service.get("/metrics")[1]:
            assert time.monotonic() < deadline, service.output()
            time.sleep(0.1)
        # Readiness follows the watch: the failed tries before the CRD came do not hold
        # it back until the quiet watch's first event or its inactivity timeout (90 s).
        service.wait_ready(timeout=10)
    finally:
        assert service.stop() == 0
    assert "Traceback" not in service.output()


def _health(service: ServiceProcess) -> tuple[int, int]:
    try:
        return service.get("/healthz")[0], service.get("/readyz")[0]
    except OSError:  # not listening yet
        return 0, 0


RELOADED = """
watch:
  namespaces: [{ns}]
  kinds: [Pod]
  resources:
    - {{kind: {kind}, group: {group}, version: v1, resource: {plural},
       states: {{Ready: {{condition: Ready}}, {down}: {{condition: Ready, status: "False"}}}}}}
sinks: [{{name: hook, type: webhook, url: '{url}'}}]
defaults: {{recovery_window: 0s}}  # each fall its own incident: this test is about reloads
rules:
  - {{name: gadgets-down, match: {{kinds: [{kind}], to: [{told}]}}, sinks: [hook]}}
"""


def _ready(custom: client.CustomObjectsApi, ns: str, plural: str, status: str) -> None:
    conditions = [{"type": "Ready", "status": status, "reason": f"Was{status}"}]
    custom.patch_namespaced_custom_object_status(
        GROUP, "v1", ns, plural, "g1", {"status": {"conditions": conditions}}
    )


def test_a_refused_reload_of_a_resources_states_changes_nothing_an_accepted_one_applies(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    """The refused file renames a state its rule still names: refused, and what is told is
    as before; the accepted one renames both: the resource is listed afresh, quietly, and
    its next fall is told under the new name."""
    suffix = uuid.uuid4().hex[:6]
    plural, kind = f"widgets{suffix}", f"Widget{suffix.upper()}"
    kube = Kube(control_plane)
    control_plane.kubectl_apply(_crd(plural, kind))
    ns = kube.namespace("crreload")
    custom = client.CustomObjectsApi(kube.api)
    _wait_served(custom, ns, plural)
    body = {"apiVersion": f"{GROUP}/v1", "kind": kind, "metadata": {"name": "g1"}}
    custom.create_namespaced_custom_object(GROUP, "v1", ns, plural, body)
    _ready(custom, ns, plural, "True")
    path = tmp_path / "config.yaml"

    def write(down: str, told: str) -> None:
        path.write_text(RELOADED.format(ns=ns, kind=kind, group=GROUP, plural=plural,
                                        down=down, told=told, url=receiver.url))  # fmt: skip

    write("NotReady", "NotReady")
    service = ServiceProcess(path, control_plane.kubeconfig, tmp_path / "state.db").start()
    try:
        service.wait_ready()
        write("Unready", "NotReady")  # the rule names a state the file no longer declares
        service.wait_for_output(lambda log: "rejected" in log, 30)
        _ready(custom, ns, plural, "False")
        receiver.wait_for(lambda _: len(receiver.received()) == 1, timeout=30)
        write("Unready", "Unready")
        service.wait_for_output(lambda log: f"first list acted on: {kind}" in log, 30)
        _ready(custom, ns, plural, "True")
        _ready(custom, ns, plural, "False")
        receiver.wait_for(lambda _: len(receiver.received()) == 2, timeout=30)
    finally:
        assert service.stop() == 0, service.output()
    entered = [r.json()["transition"]["entered"] for r in receiver.received()]
    assert "NotReady" in entered[0] and "Unready" in entered[1], entered
