"""The owner's latest rollout, read from its revisions: the before and after of its template.

A Deployment's revisions are its ReplicaSets (``deployment.kubernetes.io/revision``);
a StatefulSet's and a DaemonSet's are its ControllerRevisions (``revision``).
The newest is the rollout; the one before it is what it replaced. It began
when that revision was created (a rollback to an older ReplicaSet keeps the
old creation time: it is dated by it); who did it is the newest write to the
owner's ``spec.template`` (``managedFields``). A Job has no rollouts (its
template cannot change), so only its template is read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from notifier.enrichment.changes import Rollout, TemplateChange
from notifier.enrichment.managers import manager_name, seconds_of, template_writer
from notifier.enrichment.manifests import (
    Meta,
    PodSpec,
    RevisionList,
    Workload,
    WorkloadList,
)
from notifier.enrichment.reads import Reads
from notifier.enrichment.templates import MOST_CHANGES, Redact, shown, template_changes

_REVISION = "deployment.kubernetes.io/revision"
_LIST_LIMIT = "100"
_SKEW = 60.0  # seconds the API server's clock may be ahead of ours
_PATHS = {
    "Deployment": "/apis/apps/v1/namespaces/{ns}/deployments/{name}",
    "StatefulSet": "/apis/apps/v1/namespaces/{ns}/statefulsets/{name}",
    "DaemonSet": "/apis/apps/v1/namespaces/{ns}/daemonsets/{name}",
    "ReplicaSet": "/apis/apps/v1/namespaces/{ns}/replicasets/{name}",
    "Job": "/apis/batch/v1/namespaces/{ns}/jobs/{name}",
}
ROLLED_OUT = ("Deployment", "StatefulSet", "DaemonSet", "Job")


@dataclass(frozen=True, slots=True)
class Window:
    now: float  # Unix seconds: when the trouble was looked at
    seconds: float

    def ago(self, stamp: str) -> int | None:
        """Whole seconds since ``stamp`` when it is within the window, else None.

        A time up to ``_SKEW`` ahead of ours is the API server's clock, not the future.
        """
        at = seconds_of(stamp)
        if at is None or not -_SKEW <= self.now - at <= self.seconds:
            return None
        return max(0, int(self.now - at))


@dataclass(frozen=True, slots=True)
class Lineage:
    """What was learned of the owner: its name, its Pods' labels, its template, its rollout."""

    owner: str
    selector: dict[str, str] = field(default_factory=dict)
    template: PodSpec | None = None
    rollout: Rollout | None = None


def workload_of(reads: Reads, ns: str, kind: str, name: str) -> tuple[str, str]:
    """(kind, name) of what rolls out ``kind``/``name``: a ReplicaSet's Deployment."""
    if kind != "ReplicaSet":
        return kind, name
    replica_set = reads.read(_PATHS[kind].format(ns=ns, name=name), {}, Workload)
    owner = replica_set.metadata.controller()
    return (owner.kind, owner.name) if owner is not None else (kind, name)


def lineage(
    reads: Reads, ns: str, kind: str, name: str, *, window: Window, redact: Redact
) -> Lineage:
    workload = reads.read(_PATHS[kind].format(ns=ns, name=name), {}, Workload)
    selector = dict(workload.spec.selector.match_labels)
    label = f"{kind}/{shown(name)}"
    if kind == "Job":
        return Lineage(label, selector, workload.spec.template.spec)
    if kind == "Deployment":
        revisions = _replica_sets(reads, ns, workload, selector)
    else:
        revisions = _controller_revisions(reads, ns, workload, selector)
    if not revisions:
        return Lineage(label, selector, workload.spec.template.spec)
    newest = revisions[-1]
    previous = revisions[-2] if len(revisions) > 1 else None
    rollout = _rollout(label, workload.metadata, newest, previous, window=window, redact=redact)
    return Lineage(label, selector, newest[2], rollout)


Revision = tuple[int, Meta, PodSpec]  # (number, the revision's metadata, its pod template)


def _selected(selector: dict[str, str]) -> dict[str, str]:
    chosen = ",".join(f"{key}={value}" for key, value in sorted(selector.items()))
    return {"labelSelector": chosen, "limit": _LIST_LIMIT}


def _replica_sets(
    reads: Reads, ns: str, owner: Workload, selector: dict[str, str]
) -> list[Revision]:
    path = f"/apis/apps/v1/namespaces/{ns}/replicasets"
    listed = reads.read(path, _selected(selector), WorkloadList).items
    found = [
        (_number(rs.metadata.annotations.get(_REVISION, "")), rs.metadata, rs.spec.template.spec)
        for rs in listed
        if _owned(rs.metadata, owner)
    ]
    return sorted(found, key=_by_number)


def _controller_revisions(
    reads: Reads, ns: str, owner: Workload, selector: dict[str, str]
) -> list[Revision]:
    path = f"/apis/apps/v1/namespaces/{ns}/controllerrevisions"
    listed = reads.read(path, _selected(selector), RevisionList).items
    found = [(r.revision, r.metadata, r.data.spec.template.spec) for r in listed
             if _owned(r.metadata, owner)]  # fmt: skip
    return sorted(found, key=_by_number)


def _by_number(revision: Revision) -> int:
    return revision[0]


def _owned(meta: Meta, owner: Workload) -> bool:
    ref = meta.controller()
    return ref is not None and ref.uid == owner.metadata.uid


def _number(text: str) -> int:
    return int(text) if text.isdigit() and len(text) < 10 else 0


def _rollout(
    label: str,
    owner: Meta,
    newest: Revision,
    previous: Revision | None,
    *,
    window: Window,
    redact: Redact,
) -> Rollout | None:
    number, meta, template = newest
    ago = window.ago(meta.creation_timestamp)
    if ago is None or previous is None:  # outside the window, or the first revision: no change
        return None
    writer = template_writer(owner)
    changes: list[TemplateChange] = template_changes(previous[2], template, redact)
    return Rollout(
        owner=label,
        revision=number,
        at=shown(meta.creation_timestamp),
        seconds_before=ago,
        manager=manager_name(writer.manager) if writer else "unknown",
        changes=tuple(changes[:MOST_CHANGES]),
        more=max(0, len(changes) - MOST_CHANGES),
    )
