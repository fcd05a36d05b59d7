"""Jobs, StatefulSets and DaemonSets: states from real-shaped status, and their transitions."""

from __future__ import annotations

from typing import Any

import msgspec

from notifier.kinds.cronjob import CronJob
from notifier.kinds.daemonset import DaemonSet
from notifier.kinds.job import Job
from notifier.kinds.registry import spec_of
from notifier.kinds.statefulset import StatefulSet
from notifier.objects import KubeObject
from notifier.origin import Origin
from notifier.rules.facts.contexts import single_context
from notifier.transitions.detecting import detect
from notifier.transitions.model import Transition
from notifier.transitions.owners import owner_of
from notifier.transitions.states import states_of


def _job(status: dict[str, Any], **spec: Any) -> Job:
    meta = {"name": "backup-28861234", "namespace": "ops", "uid": "u1", "generation": 1}
    meta["ownerReferences"] = [{"kind": "CronJob", "name": "backup", "controller": True}]
    return msgspec.convert({"metadata": meta, "spec": spec, "status": status}, type=Job)


def _detect(old: KubeObject, new: KubeObject) -> Transition:
    found = detect(old, new, origin=Origin.LIVE, observed_at=1.0, correlation_id="t")
    assert found is not None
    return found


FAILED = {
    "type": "Failed",
    "status": "True",
    "reason": "BackoffLimitExceeded",
    "message": "Job has reached the specified backoff limit",
}


def test_a_job_that_exhausts_its_backoff_limit_enters_failed_with_the_reason() -> None:
    running = _job({"active": 1, "failed": 5}, backoffLimit=6)
    failed = _job({"failed": 7, "conditions": [FAILED]}, backoffLimit=6)

    transition = _detect(running, failed)

    assert states_of(running) == {"Active"}
    assert transition.entered == {"Failed"} and "PodFailed" in transition.signals
    context = single_context(transition, cluster="", rule="r", owner=("CronJob", "backup"))
    assert context["reason"] == "BackoffLimitExceeded"
    assert context["severity"] == "critical"
    assert ["Pods", "0/1 succeeded, 7 failed, 0 active"] in context["details"]


def test_job_states_are_one_at_a_time_failed_first() -> None:
    complete = {"type": "Complete", "status": "True"}
    assert states_of(_job({"succeeded": 1, "conditions": [complete]})) == {"Complete"}
    assert states_of(_job({"conditions": [complete, FAILED]})) == {"Failed"}
    assert states_of(_job({}, suspend=True)) == {"Suspended"}
    assert states_of(_job({})) == frozenset()


def _sts(generation: int, status: dict[str, Any], replicas: int = 3) -> StatefulSet:
    meta = {"name": "db", "namespace": "data", "uid": "s1", "generation": generation}
    spec = {"replicas": replicas, "template": {"spec": {"containers": [{"name": "pg"}]}}}
    return msgspec.convert({"metadata": meta, "spec": spec, "status": status}, type=StatefulSet)


def test_a_statefulset_rollout_progresses_then_completes() -> None:
    done = {"observedGeneration": 2, "replicas": 3, "readyReplicas": 3, "availableReplicas": 3,
            "updatedReplicas": 3, "currentRevision": "db-2", "updateRevision": "db-2"}  # fmt: skip
    rolling = {**done, "updatedReplicas": 1, "currentRevision": "db-1", "readyReplicas": 2,
               "availableReplicas": 2}  # fmt: skip

    assert states_of(_sts(2, rolling)) == {"Progressing", "Unavailable"}
    assert states_of(_sts(2, done)) == {"Complete", "Available"}
    assert states_of(_sts(3, done)) == {"Progressing", "Available"}  # spec not yet observed
    assert _detect(_sts(2, rolling), _sts(2, done)).entered == {"Complete", "Available"}


def test_a_statefulset_scaled_says_so() -> None:
    status = {"observedGeneration": 1, "replicas": 3, "readyReplicas": 3, "availableReplicas": 3}
    assert "Scaled" in _detect(_sts(1, status), _sts(1, status, replicas=5)).signals


def _ds(status: dict[str, Any], generation: int = 4) -> DaemonSet:
    meta = {"name": "fluentd", "namespace": "logging", "uid": "d1", "generation": generation}
    return msgspec.convert({"metadata": meta, "status": status}, type=DaemonSet)


def test_daemonset_unavailable_and_misscheduled_pods() -> None:
    healthy = {"observedGeneration": 4, "desiredNumberScheduled": 5, "updatedNumberScheduled": 5,
               "numberAvailable": 5, "numberReady": 5}  # fmt: skip
    broken = {**healthy, "numberAvailable": 3, "numberUnavailable": 2, "numberMisscheduled": 1}

    assert states_of(_ds(healthy)) == {"Complete", "Available"}
    transition = _detect(_ds(healthy), _ds(broken))
    assert transition.entered == {"Progressing", "Unavailable", "Misscheduled"}
    context = single_context(transition, cluster="", rule="r", owner=None)
    assert context["severity"] == "warning"
    assert context["replicas"] == "5/5 ready, 1 misscheduled"


def test_every_workload_change_renders_a_change_for_what_moved() -> None:
    old = _job({"active": 1})
    new = _job({"active": 0, "failed": 1})
    paths = {change.path for change in _detect(old, new).changes}
    assert paths == {"status.active", "status.failed"}
    assert spec_of(new).kind == "Job"


def _cron(suspend: bool, active: int, last: str | None) -> CronJob:
    doc = {
        "metadata": {"name": "backup", "namespace": "ops", "uid": "c1"},
        "spec": {"schedule": "0 3 * * *", "suspend": suspend, "jobTemplate": {"spec": {}}},
        "status": {"active": [{"kind": "Job", "name": "backup-1"}] * active,
                   "lastScheduleTime": last},
    }  # fmt: skip
    return msgspec.convert(doc, type=CronJob)


def test_a_cronjob_run_is_a_signal_and_its_failed_job_names_it_as_owner() -> None:
    idle = _cron(False, 0, "2026-11-23T03:00:00Z")
    running = _cron(False, 1, "2026-11-24T03:00:00Z")
    started = _detect(idle, running)
    assert started.entered == {"Active"} and "Scheduled" in started.signals
    assert states_of(_cron(True, 0, None)) == {"Suspended"}
    failed = _job({"failed": 1, "conditions": [FAILED]})
    assert owner_of(failed) == ("CronJob", "backup")
