"""detect / detect_all on recorded watch streams: which states are entered and left, which
signals fire, and when nothing is worth a transition."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from msgspec.structs import replace

from notifier.kinds.deployment import Deployment
from notifier.kinds.workload import Container
from notifier.objects import EventType, KubeObject, ObjectKey
from notifier.origin import Origin
from notifier.transitions.detecting import detect, detect_all, signals_between
from notifier.transitions.model import Transition
from notifier.transitions.states import states_of
from tests.unit.transitions.recorded import deployments, pods, services


def _detect(old: KubeObject | None, new: KubeObject | None) -> Transition | None:
    return detect(old, new, origin=Origin.LIVE, observed_at=1715.5, correlation_id="c-1")


@dataclass(frozen=True)
class Step:
    """One update in a recorded stream and what a rule should see of it."""

    fixture: str
    old: int
    new: int
    entered: frozenset[str] = frozenset()
    left: frozenset[str] = frozenset()
    signals: frozenset[str] = frozenset()
    comment: str = field(default="", compare=False)

    def objects(self) -> tuple[KubeObject, KubeObject]:
        stream = _stream(self.fixture)
        return stream[self.old], stream[self.new]


def _stream(fixture: str) -> list[KubeObject]:
    if fixture.startswith("pod_"):
        return [*pods(fixture)]
    if fixture.startswith("deployment_"):
        return [*deployments(fixture)]
    return [*services(fixture)]


def _s(*names: str) -> frozenset[str]:
    return frozenset(names)


UPDATES = [
    Step("pod_crashloop", 0, 1, comment="scheduled: changes, no state change"),
    Step("pod_crashloop", 2, 3, _s("Running", "Ready"), _s("Pending", "ContainerCreating")),
    # the container ended: the kubelet's back-off is the crash loop before it says so
    Step("pod_crashloop", 3, 4, _s("NotReady", "CrashLoopBackOff"), _s("Ready")),
    Step("pod_crashloop", 4, 5, left=_s("CrashLoopBackOff"), signals=_s("RestartCountIncreased")),
    Step("pod_crashloop", 5, 6, _s("CrashLoopBackOff"), signals=_s("RestartCountIncreased")),
    Step(
        "pod_crashloop",
        3,
        6,
        _s("NotReady", "CrashLoopBackOff"),
        _s("Ready"),
        _s("RestartCountIncreased"),
        comment="coalesced by the queue",
    ),
    Step(
        "pod_oomkilled",
        0,
        1,
        _s("NotReady", "OOMKilled"),
        _s("Ready"),
        _s("RestartCountIncreased"),
        comment="OOM seen only through the restart",
    ),
    Step(
        "pod_oomkilled",
        1,
        2,
        _s("CrashLoopBackOff", "OOMKilled"),
        comment="the second OOM kill: down, waiting",
    ),
    Step(
        "pod_oomkilled",
        2,
        3,
        _s("Ready"),
        _s("CrashLoopBackOff", "NotReady"),
        _s("RestartCountIncreased"),
        comment="restarted: OOMKilled held on both sides",
    ),
    Step("pod_oomkilled", 3, 4, comment="a label: OOMKilled neither entered nor left"),
    Step("pod_job_oom", 0, 1, _s("Failed", "OOMKilled"), _s("Running", "Ready")),
    Step("pod_imagepull", 0, 1, _s("ErrImagePull"), _s("ContainerCreating")),
    Step("pod_imagepull", 1, 2, _s("ImagePullBackOff"), _s("ErrImagePull")),
    Step("pod_init_config_error", 0, 1, left=_s("CreateContainerConfigError")),
    Step("pod_init_config_error", 1, 2, _s("Running", "Ready"), _s("Pending")),
    Step("pod_evicted", 0, 1, _s("Failed", "Evicted"), _s("Running", "Ready")),
    Step("pod_terminating", 0, 1, _s("Terminating")),
    Step(
        "deployment_rollout",
        0,
        1,
        _s("Progressing"),
        _s("Complete"),
        _s("ImageChanged", "RolloutStarted"),
    ),
    Step("deployment_rollout", 1, 2, comment="controller picked it up: counts and revision"),
    Step("deployment_rollout", 3, 4, _s("Complete"), _s("Progressing")),
    Step("deployment_rollout", 4, 5, _s("Progressing"), _s("Complete"), _s("Scaled")),
    Step("deployment_rollout", 5, 6, _s("Unavailable"), _s("Progressing", "Available")),
    Step("deployment_rollout", 6, 7, _s("Complete", "Available"), _s("Unavailable")),
    Step(
        "deployment_stuck",
        0,
        1,
        _s("Progressing"),
        _s("Complete"),
        _s("ImageChanged", "RolloutStarted"),
    ),
    Step("deployment_stuck", 1, 2, _s("Stuck"), _s("Progressing")),
    Step("deployment_stuck", 2, 3, _s("Paused"), _s("Stuck")),
    Step("deployment_quota", 0, 1, _s("ReplicaFailure")),  # rolling out: not Unavailable
    Step("service", 0, 1, signals=_s("TypeChanged", "PortsChanged")),
    Step("service", 1, 2, signals=_s("PortsChanged")),
    Step("service", 2, 3, signals=_s("SelectorChanged")),
    Step("service", 4, 5, signals=_s("TypeChanged"), comment="plus the LB address"),
]


@pytest.mark.parametrize("step", UPDATES, ids=lambda s: f"{s.fixture}[{s.old}->{s.new}]")
def test_update(step: Step) -> None:
    old, new = step.objects()
    found = _detect(old, new)
    assert found is not None
    assert found.event is EventType.UPDATED
    assert (found.entered, found.left, found.signals) == (step.entered, step.left, step.signals)
    assert found.changes, "an update always says which fields changed"


@pytest.mark.parametrize(
    ("fixture", "old", "new"),
    [
        pytest.param("pod_crashloop", 6, 7, id="back-off message and resourceVersion only"),
        pytest.param("service", 3, 4, id="no-op apply: resourceVersion and managedFields"),
    ],
)
def test_nothing_user_visible_is_no_transition(fixture: str, old: int, new: int) -> None:
    stream = _stream(fixture)
    assert _detect(stream[old], stream[new]) is None


def test_resync_with_the_identical_object_is_no_transition() -> None:
    pod = pods("pod_crashloop")[3]
    assert detect(pod, pod, origin=Origin.RESYNC, observed_at=0.0, correlation_id="") is None


def test_only_resource_version_changed_is_no_transition() -> None:
    deployment = deployments("deployment_rollout")[0]
    bumped = replace(deployment, metadata=replace(deployment.metadata, resource_version="999999"))
    assert _detect(deployment, bumped) is None


def test_added_carries_the_states_it_starts_in() -> None:
    pod = pods("pod_crashloop")[6]
    found = _detect(None, pod)
    assert found is not None
    assert (found.event, found.old, found.new) == (EventType.ADDED, None, pod)
    assert found.old_states == frozenset()
    assert found.new_states == {"Running", "NotReady", "CrashLoopBackOff"}
    assert found.signals == {"Created"}
    assert found.changes == ()


def test_deleted_carries_the_states_it_left() -> None:
    deployment = deployments("deployment_stuck")[2]
    found = detect(
        deployment,
        None,
        origin=Origin.RELIST,
        observed_at=2.0,
        correlation_id="c-2",
        final_state_unknown=True,
    )
    assert found is not None
    assert (found.event, found.old, found.new) == (EventType.DELETED, deployment, None)
    assert found.left == {"Stuck", "Available"}
    assert found.signals == {"Deleted"}
    assert found.final_state_unknown


def test_transition_carries_identity_and_context() -> None:
    old, new = pods("pod_crashloop")[3:5]
    found = detect(old, new, origin=Origin.CATCH_UP, observed_at=42.0, correlation_id="abc")
    assert found is not None
    assert (found.kind, found.key) == ("Pod", ObjectKey("shop/web-7d4b9c6f5d-x2x9k"))
    assert (found.origin, found.observed_at, found.correlation_id) == (
        Origin.CATCH_UP,
        42.0,
        "abc",
    )
    assert found.old_states == states_of(old)
    assert not found.final_state_unknown


def test_nothing_to_nothing_is_none() -> None:
    assert _detect(None, None) is None


def test_two_kinds_under_one_key_is_a_caller_bug() -> None:
    with pytest.raises(TypeError, match="Pod cannot become a Service"):
        _detect(pods("pod_crashloop")[0], services("service")[0])


def test_detect_all_splits_a_replaced_object_into_delete_and_add() -> None:
    old = pods("pod_crashloop")[6]
    new = replace(pods("pod_crashloop")[0], metadata=replace(old.metadata, uid="new-uid"))
    deleted, added = detect_all(old, new, origin=Origin.LIVE, observed_at=3.0, correlation_id="c-3")
    assert (deleted.event, deleted.old, deleted.signals) == (EventType.DELETED, old, _s("Deleted"))
    assert deleted.final_state_unknown, "the old pod's own delete was never seen"
    assert (added.event, added.new, added.signals) == (EventType.ADDED, new, _s("Created"))
    assert not added.final_state_unknown
    assert deleted.correlation_id == added.correlation_id == "c-3"


def test_detect_all_splits_a_kind_change() -> None:
    pod, service = pods("pod_crashloop")[0], services("service")[0]
    events = [found.event for found in _detect_all(pod, service)]
    assert events == [EventType.DELETED, EventType.ADDED]


@pytest.mark.parametrize(
    ("old", "new", "events"),
    [
        pytest.param(0, 1, [EventType.UPDATED], id="same uid: one update"),
        pytest.param(6, 7, [], id="same uid, nothing visible: none"),
        pytest.param(None, 0, [EventType.ADDED], id="add"),
        pytest.param(0, None, [EventType.DELETED], id="delete"),
    ],
)
def test_detect_all_is_detect_for_one_object(
    old: int | None, new: int | None, events: list[EventType]
) -> None:
    stream = pods("pod_crashloop")
    before = None if old is None else stream[old]
    after = None if new is None else stream[new]
    assert [found.event for found in _detect_all(before, after)] == events


def _detect_all(old: KubeObject | None, new: KubeObject | None) -> list[Transition]:
    return detect_all(old, new, origin=Origin.LIVE, observed_at=0.0, correlation_id="c")


def _with_template_image(deployment: Deployment, image: str, *, paused: bool) -> Deployment:
    template = deployment.spec.template
    spec = replace(template.spec, containers=(Container(name="checkout", image=image),))
    return replace(
        deployment,
        metadata=replace(deployment.metadata, generation=deployment.metadata.generation + 1),
        spec=replace(deployment.spec, paused=paused, template=replace(template, spec=spec)),
    )


def test_template_change_while_paused_starts_no_rollout() -> None:
    paused = deployments("deployment_stuck")[3]
    edited = _with_template_image(paused, "registry.example.com/shop/checkout:1.5.0", paused=True)
    assert signals_between(paused, edited) == {"ImageChanged"}


def test_resuming_with_a_template_change_starts_a_rollout() -> None:
    paused = deployments("deployment_stuck")[3]
    edited = _with_template_image(paused, "registry.example.com/shop/checkout:1.5.0", paused=False)
    assert signals_between(paused, edited) == {"ImageChanged", "RolloutStarted"}


def test_a_sidecar_added_is_a_rollout_but_no_image_change() -> None:
    old = deployments("deployment_rollout")[4]
    template = old.spec.template
    sidecar = Container(name="proxy", image="envoyproxy/envoy:v1.30.1")
    spec = replace(template.spec, containers=(*template.spec.containers, sidecar))
    new = replace(
        old,
        metadata=replace(old.metadata, generation=3),
        spec=replace(old.spec, template=replace(template, spec=spec)),
    )
    assert signals_between(old, new) == {"RolloutStarted"}


def test_replicas_unset_and_one_are_the_same_scale() -> None:
    old = deployments("deployment_rollout")[0]
    one, unset = (replace(old, spec=replace(old.spec, replicas=r)) for r in (1, None))
    assert "Scaled" not in signals_between(one, unset)


def test_a_port_number_sent_as_text_is_no_change() -> None:
    service = services("service")[0]
    port = service.spec.ports[0]
    as_text = replace(port, target_port=str(port.target_port))
    retyped = replace(service, spec=replace(service.spec, ports=(as_text,)))
    assert _detect(service, retyped) is None
