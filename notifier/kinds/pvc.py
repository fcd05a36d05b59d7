"""PersistentVolumeClaims: waiting for a volume (`Pending`), `Bound`, or `Lost` its volume."""

from __future__ import annotations

import msgspec

from notifier.kinds.diffing import Diff
from notifier.kinds.sharing import Sharing
from notifier.kinds.spec import ApiResource, Facts, KindSpec, facts
from notifier.objects import Condition, Kind, KubeObject, Wire, timestamp

PHASES = ("Pending", "Bound", "Lost")


class PersistentVolumeClaimSpec(Wire, frozen=True):
    storage_class_name: str | None = None
    volume_name: str = ""


class PersistentVolumeClaimStatus(Wire, frozen=True):
    phase: str = ""
    capacity: dict[str, str] = {}
    conditions: tuple[Condition, ...] = ()


class PersistentVolumeClaim(KubeObject, frozen=True, tag="PersistentVolumeClaim"):
    spec: PersistentVolumeClaimSpec = PersistentVolumeClaimSpec()
    status: PersistentVolumeClaimStatus = PersistentVolumeClaimStatus()


def pvc_states(pvc: PersistentVolumeClaim) -> frozenset[str]:
    phase = pvc.status.phase or "Pending"
    return frozenset({phase}) if phase in PHASES else frozenset()


def _entered_at(pvc: PersistentVolumeClaim, states: frozenset[str]) -> float | None:
    """``Pending`` is where a claim starts: it holds since its creation (until bound)."""
    return timestamp(pvc.metadata.creation_timestamp) if "Pending" in states else None


def _signals(old: PersistentVolumeClaim, new: PersistentVolumeClaim) -> list[str]:
    was, now = old.status.capacity.get("storage"), new.status.capacity.get("storage")
    return ["Resized"] if was and now and was != now else []


def _diff(diff: Diff, old: PersistentVolumeClaim, new: PersistentVolumeClaim) -> None:
    diff.text("spec.volumeName", old.spec.volume_name, new.spec.volume_name)
    diff.text("status.phase", old.status.phase, new.status.phase)
    diff.mapping("status.capacity", old.status.capacity, new.status.capacity)
    diff.conditions(old.status.conditions, new.status.conditions)


def _facts(pvc: PersistentVolumeClaim, old: PersistentVolumeClaim | None) -> Facts:
    cond = next(iter(pvc.status.conditions), None)
    storage = pvc.status.capacity.get("storage", "")
    details = (("Capacity", storage),)
    if cond is None:
        return facts(details=details)
    return facts(cond.reason, cond.message, details)


def _share(sharing: Sharing, pvc: PersistentVolumeClaim) -> PersistentVolumeClaim:
    return msgspec.structs.replace(
        pvc,
        metadata=sharing.metadata(pvc.metadata),
        spec=msgspec.structs.replace(
            pvc.spec, storage_class_name=sharing.values.intern(pvc.spec.storage_class_name)
        ),
    )


PVC = KindSpec(
    kind=Kind.PVC,
    struct=PersistentVolumeClaim,
    api=ApiResource("", "v1", "persistentvolumeclaims"),
    summary="waiting for a volume, bound, or lost",
    states={
        "Pending": "`status.phase` is `Pending` (or empty): no volume yet",
        "Bound": "`status.phase` is `Bound`",
        "Lost": "`status.phase` is `Lost`: its volume went away",
    },
    signals={"Resized": "`status.capacity.storage` changed (an expansion finished)"},
    states_of=pvc_states,
    signals_between=_signals,
    diff=_diff,
    facts=_facts,
    share=_share,
    entered_at=_entered_at,
    critical=("Lost",),
)
