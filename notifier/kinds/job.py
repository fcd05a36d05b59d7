"""Jobs: finished (`Complete`), gave up (`Failed`, with the reason), running, suspended.

A Job's end is its conditions: the job controller sets ``Complete`` or
``Failed`` (reason ``BackoffLimitExceeded``, ``DeadlineExceeded``,
``PodFailurePolicy``, ...) to ``True`` once. ``PodFailed`` is the edge of
each failed pod, retried or not. A Job a CronJob started has the CronJob as
its owner, so ``owner`` names the schedule that failed.
"""

from __future__ import annotations

from collections.abc import Iterator

from notifier.kinds.deployment import replica_counts
from notifier.kinds.diffing import Diff
from notifier.kinds.spec import ApiResource, Facts, KindSpec, facts
from notifier.kinds.workload import (
    PodTemplateSpec,
    condition,
    condition_is,
    diff_template,
    share_workload_and_conditions,
)
from notifier.objects import Condition, Kind, KubeObject, Wire


class JobSpec(Wire, frozen=True):
    parallelism: int | None = None
    completions: int | None = None
    backoff_limit: int | None = None
    active_deadline_seconds: int | None = None
    suspend: bool = False
    template: PodTemplateSpec = PodTemplateSpec()


class JobStatus(Wire, frozen=True):
    active: int = 0
    succeeded: int = 0
    failed: int = 0
    ready: int = 0
    start_time: str | None = None
    completion_time: str | None = None
    conditions: tuple[Condition, ...] = ()


class Job(KubeObject, frozen=True, tag="Job"):
    spec: JobSpec = JobSpec()
    status: JobStatus = JobStatus()


def job_states(job: Job) -> frozenset[str]:
    conditions = job.status.conditions
    if condition_is(conditions, "Failed"):
        return frozenset({"Failed"})
    if condition_is(conditions, "Complete"):
        return frozenset({"Complete"})
    if job.spec.suspend or condition_is(conditions, "Suspended"):
        return frozenset({"Suspended"})
    return frozenset({"Active"}) if job.status.active > 0 else frozenset()


def _signals(old: Job, new: Job) -> Iterator[str]:
    if new.status.failed > old.status.failed:
        yield "PodFailed"


def _diff(diff: Diff, old: Job, new: Job) -> None:
    if old.spec != new.spec:
        was, now = old.spec, new.spec
        diff.number("spec.parallelism", was.parallelism, now.parallelism)
        diff.number("spec.completions", was.completions, now.completions)
        diff.number("spec.backoffLimit", was.backoff_limit, now.backoff_limit)
        diff.flag("spec.suspend", was.suspend, now.suspend)
        diff_template(diff, was.template, now.template)
    if old.status != new.status:
        replica_counts(diff, old.status, new.status)
        diff.text(
            "status.completionTime",
            old.status.completion_time or "",
            new.status.completion_time or "",
        )
        diff.conditions(old.status.conditions, new.status.conditions)


def _facts(job: Job, old: Job | None) -> Facts:
    status, conditions = job.status, job.status.conditions
    chosen = next(
        (condition(conditions, kind) for kind in ("Failed", "Complete", "Suspended")
         if condition_is(conditions, kind)),
        None,
    )  # fmt: skip
    wanted = job.spec.completions if job.spec.completions is not None else 1
    counts = (
        f"{status.succeeded}/{wanted} succeeded, {status.failed} failed, {status.active} active"
    )
    details = (("Pods", counts),)
    if chosen is None:
        return facts(details=details)
    return facts(chosen.reason, chosen.message, details)


JOB = KindSpec(
    kind=Kind.JOB,
    struct=Job,
    api=ApiResource("batch", "v1", "jobs"),
    summary="finished, failed (with the reason), running, suspended",
    states={
        "Complete": "`status.conditions[Complete]` is `True`",
        "Failed": "`status.conditions[Failed]` is `True`; `reason` says why "
        "(`BackoffLimitExceeded`, `DeadlineExceeded`, `PodFailurePolicy`, ...)",
        "Suspended": "`spec.suspend`, or `status.conditions[Suspended]` is `True`, "
        "and neither finished",
        "Active": "`status.active > 0`, not finished nor suspended",
    },
    signals={"PodFailed": "`status.failed` grew: a pod of the Job failed (retried or not)"},
    states_of=job_states,
    signals_between=_signals,
    diff=_diff,
    facts=_facts,
    share=share_workload_and_conditions,
    critical=("Failed",),
    workload=True,
)
