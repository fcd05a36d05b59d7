"""CronJobs: suspended, a Job running, and each scheduled run as a signal.

A scheduled Job that fails is told by the Job (``kinds: [Job]``,
``to: [Failed]``), whose owner is the CronJob (``owner: {kind: CronJob}``).
A run the controller missed is told by its Warning Event (``kinds: [Event]``,
``reasons: [MissSchedule, TooManyMissedTimes]``, ``owner: {kind: CronJob}``):
the controller knows the schedule, so we do not guess it.
"""

from __future__ import annotations

from notifier.kinds.diffing import Diff
from notifier.kinds.spec import ApiResource, Facts, KindSpec, facts, shared_spec
from notifier.objects import Kind, KubeObject, OwnerReference, Wire


class CronJobSpec(Wire, frozen=True):
    schedule: str = ""
    time_zone: str | None = None
    suspend: bool = False
    concurrency_policy: str = ""


class CronJobStatus(Wire, frozen=True):
    active: tuple[OwnerReference, ...] = ()
    last_schedule_time: str | None = None
    last_successful_time: str | None = None


class CronJob(KubeObject, frozen=True, tag="CronJob"):
    spec: CronJobSpec = CronJobSpec()
    status: CronJobStatus = CronJobStatus()


def cronjob_states(cron: CronJob) -> frozenset[str]:
    states = set[str]()
    if cron.spec.suspend:
        states.add("Suspended")
    if cron.status.active:
        states.add("Active")
    return frozenset(states)


def _signals(old: CronJob, new: CronJob) -> list[str]:
    found = []
    scheduled = new.status.last_schedule_time
    if scheduled and scheduled != old.status.last_schedule_time:
        found.append("Scheduled")
    was, now = old.status.last_successful_time, new.status.last_successful_time
    if now and now != was:
        found.append("Succeeded")
    return found


def _diff(diff: Diff, old: CronJob, new: CronJob) -> None:
    diff.text("spec.schedule", old.spec.schedule, new.spec.schedule)
    diff.flag("spec.suspend", old.spec.suspend, new.spec.suspend)
    diff.number("status.active", len(old.status.active), len(new.status.active))
    was, now = old.status, new.status
    diff.text("status.lastScheduleTime", was.last_schedule_time or "", now.last_schedule_time or "")
    diff.text(
        "status.lastSuccessfulTime", was.last_successful_time or "", now.last_successful_time or ""
    )


def _facts(cron: CronJob, old: CronJob | None) -> Facts:
    last = cron.status.last_schedule_time or "never"
    return facts(details=(("Schedule", cron.spec.schedule), ("Last run", last)))


CRONJOB = KindSpec(
    kind=Kind.CRONJOB,
    struct=CronJob,
    api=ApiResource("batch", "v1", "cronjobs"),
    summary="suspended or running; each scheduled run and success as a signal",
    states={
        "Suspended": "`spec.suspend`",
        "Active": "`status.active` lists a running Job",
    },
    signals={
        "Scheduled": "`status.lastScheduleTime` moved: a Job was started",
        "Succeeded": "`status.lastSuccessfulTime` moved: a Job it started completed",
    },
    states_of=cronjob_states,
    signals_between=_signals,
    diff=_diff,
    facts=_facts,
    share=shared_spec,
    workload=True,
)
