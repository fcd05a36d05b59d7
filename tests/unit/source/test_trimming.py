"""trim: drops the last-applied-configuration annotation and shares repeated parts."""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import given, settings

from notifier.kinds.deployment import Deployment
from notifier.kinds.pod import Pod
from notifier.kinds.service import Service
from notifier.objects import KubeObject
from notifier.source.trimming import DROPPED_ANNOTATIONS, trim
from tests.unit.source.test_interning import kube_objects

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def _decoded(kind: type[Pod] | type[Deployment] | type[Service], **meta: Any) -> KubeObject:
    document = {"kind": kind.__name__, "metadata": {"name": "web", "namespace": "shop", **meta}}
    return msgspec.json.decode(msgspec.json.encode(document), type=kind)


def test_last_applied_configuration_is_dropped_from_every_kind() -> None:
    annotations = {LAST_APPLIED: '{"kind":"Pod"}', "team": "shop"}
    for kind in (Pod, Deployment, Service):
        trimmed = trim(_decoded(kind, annotations=annotations))
        assert trimmed.metadata.annotations == {"team": "shop"}
        assert type(trimmed) is kind


def test_everything_but_the_dropped_annotation_is_kept() -> None:
    obj = _decoded(Pod, labels={"app": "web"}, annotations={LAST_APPLIED: "{}", "a": "b"})
    trimmed = trim(obj)
    assert trimmed.metadata.labels == {"app": "web"}
    assert msgspec.structs.replace(trimmed.metadata, annotations={}) == msgspec.structs.replace(
        obj.metadata, annotations={}
    )
    assert msgspec.structs.replace(trimmed, metadata=obj.metadata) == obj


def test_the_argument_keeps_its_annotations() -> None:
    obj = _decoded(Pod, annotations={LAST_APPLIED: "{}"})
    trim(obj)
    assert LAST_APPLIED in obj.metadata.annotations


def test_an_object_without_annotations_comes_back_equal() -> None:
    obj = _decoded(Service, labels={"app": "web"})
    assert trim(obj) == obj


_with_last_applied = kube_objects.map(
    lambda obj: msgspec.structs.replace(
        obj,
        metadata=msgspec.structs.replace(
            obj.metadata, annotations={**obj.metadata.annotations, LAST_APPLIED: "{}"}
        ),
    )
)


@settings(max_examples=100, deadline=None)
@given(kube_objects | _with_last_applied)
def test_trim_equals_the_input_less_the_dropped_annotations(obj: KubeObject) -> None:
    trimmed = trim(obj)
    kept = {k: v for k, v in obj.metadata.annotations.items() if k not in DROPPED_ANNOTATIONS}
    expected = msgspec.structs.replace(
        obj, metadata=msgspec.structs.replace(obj.metadata, annotations=kept)
    )
    assert trimmed == expected


def test_trimmed_objects_share_repeated_labels() -> None:
    one = trim(_decoded(Pod, labels={"app": "web", "tier": "front"}))
    two = trim(_decoded(Pod, labels={"app": "web", "tier": "front"}))
    assert one.metadata.labels is two.metadata.labels
    assert one.metadata.namespace is two.metadata.namespace
