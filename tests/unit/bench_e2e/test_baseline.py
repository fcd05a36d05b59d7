"""The tutorial-style baseline decides what to tell from the models, as kube-notifier would."""

from __future__ import annotations

from typing import Any

from kubernetes import client

from bench.e2e.baseline import Notifier, what_to_tell


def pod(
    seq: str = "1",
    phase: str = "Running",
    waiting: str | None = None,
    terminated: str | None = None,
    bench: bool = True,
) -> Any:
    labels = {"app": "web", "seq": seq} | ({"bench": "1"} if bench else {})
    state = client.V1ContainerState(
        waiting=client.V1ContainerStateWaiting(reason=waiting) if waiting else None,
        terminated=(
            client.V1ContainerStateTerminated(exit_code=137, reason=terminated)
            if terminated
            else None
        ),
    )
    status = client.V1ContainerStatus(
        name="web", image="web:1", image_id="", ready=False, restart_count=0, state=state
    )
    return client.V1Pod(
        metadata=client.V1ObjectMeta(name="p", namespace="ns", labels=labels),
        status=client.V1PodStatus(phase=phase, container_statuses=[status]),
    )


def deployment(image: str) -> Any:
    container = client.V1Container(name="web", image=image)
    template = client.V1PodTemplateSpec(spec=client.V1PodSpec(containers=[container]))
    spec = client.V1DeploymentSpec(selector=client.V1LabelSelector(), template=template)
    return client.V1Deployment(metadata=client.V1ObjectMeta(name="d", namespace="ns"), spec=spec)


def rules(kind: str, old: Any, new: Any) -> list[str]:
    return [rule for rule, _summary in what_to_tell(kind, old, new)]


def test_a_churn_pods_seq_change_is_told() -> None:
    assert rules("Pod", pod(seq="1"), pod(seq="2")) == ["bench-seq"]


def test_an_unchanged_seq_or_a_pod_outside_the_churn_is_not() -> None:
    assert rules("Pod", pod(seq="1"), pod(seq="1")) == []
    assert rules("Pod", pod(seq="1", bench=False), pod(seq="2", bench=False)) == []


def test_failures_are_told_when_reached_not_while_they_hold() -> None:
    assert rules("Pod", pod(), pod(phase="Failed")) == ["pod-failures"]
    assert rules("Pod", pod(), pod(waiting="CrashLoopBackOff")) == ["pod-failures"]
    assert rules("Pod", pod(), pod(terminated="OOMKilled")) == ["pod-failures"]
    assert rules("Pod", pod(phase="Failed"), pod(phase="Failed")) == []


def test_a_deployment_image_change_is_told() -> None:
    assert rules("Deployment", deployment("web:1"), deployment("web:2")) == ["image-changes"]
    assert rules("Deployment", deployment("web:1"), deployment("web:1")) == []


def test_adds_and_deletes_tell_nothing() -> None:
    assert rules("Pod", None, pod()) == []
    assert rules("Pod", pod(), None) == []


class Recording(Notifier):
    def __init__(self) -> None:
        super().__init__("http://127.0.0.1:9/unused")
        self.posted: list[tuple[str, str]] = []

    def post(self, rule: str, about: dict[str, Any], summary: str) -> None:
        self.posted.append((rule, about["labels"]["seq"]))


def test_the_handler_compares_with_the_cached_object_and_tells_only_modifications() -> None:
    notifier = Recording()
    notifier.handle("Pod", "ADDED", pod(seq="1"))
    notifier.handle("Pod", "MODIFIED", pod(seq="2"))
    notifier.handle("Pod", "MODIFIED", pod(seq="2"))
    notifier.handle("Pod", "DELETED", pod(seq="3"))
    notifier.handle("Pod", "MODIFIED", pod(seq="4"))  # unknown again: nothing to compare with
    assert notifier.posted == [("bench-seq", "2")]
    assert notifier.cache.keys() == {("Pod", "ns", "p")}
