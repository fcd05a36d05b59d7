"""A custom resource declared in config, watched on the real API server with its CRD installed.

The CustomResourceDefinition is served by kube-apiserver's own
apiextensions server; the test writes the object's status through the
status subresource, as a controller would.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
from kubernetes import client

from notifier.kinds.config import ResourceSpec
from notifier.kinds.custom import custom_kind
from notifier.kinds.registry import register
from notifier.objects import Kind
from notifier.service.kube import KubeAccessError, check_access
from notifier.source.client import RawClient
from tests.controlplane.cluster import ControlPlane
from tests.integration.harness import cluster_access, pipeline
from tests.integration.kube import Kube

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


def _declare(kind: str, plural: str) -> Kind:
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
    register(custom_kind(spec))
    return spec.kind


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
    kind = _declare(kind_name, plural)
    ns = kube.namespace("crd")
    custom = client.CustomObjectsApi(kube.api)
    _wait_served(custom, ns, plural)
    with pipeline(control_plane, kinds=(kind,), namespaces=[ns]) as pipe:
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


def test_a_resource_the_api_does_not_serve_stops_the_start_with_what_to_install(
    control_plane: ControlPlane,
) -> None:
    kind = _declare("Doohickey", "doohickeys")
    with pytest.raises(KubeAccessError) as refused:
        check_access(RawClient(cluster_access(control_plane)), [kind], [])
    message = str(refused.value)
    assert f"does not serve doohickeys in {GROUP}/v1" in message
    assert f"kubectl get crd doohickeys.{GROUP}" in message
