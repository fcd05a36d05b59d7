"""How ``changes`` are handed on: as plain fields in the facts' ``context.changes``.

Every receiver reads them there (``likely_cause``, ``lines`` and the fields
behind them) and shows them its own way (``notifier.sinks``).
"""

from __future__ import annotations

from typing import Any

from notifier.enrichment.changes import Changes, ConfigChange, Rollout


def change_fields(changes: Changes) -> dict[str, Any]:
    rollout = changes.rollout
    return {
        "likely_cause": changes.likely_cause,
        "window_seconds": changes.window_seconds,
        "rollout": None if rollout is None else {
            "owner": rollout.owner, "revision": rollout.revision, "at": rollout.at,
            "seconds_before": rollout.seconds_before, "manager": rollout.manager,
            "changes": [{"field": c.field, "container": c.container, "before": c.before,
                         "after": c.after} for c in rollout.changes],
            "more": rollout.more,
        },
        "configs": [_config_fields(c) for c in changes.configs],
        "node": None if changes.node is None else {
            "name": changes.node.name, "pressure": list(changes.node.pressure),
            "taints": list(changes.node.taints), "evictions": changes.node.evictions,
        },
        "blast_radius": None if changes.blast_radius is None else {
            "owner": changes.blast_radius.owner, "state": changes.blast_radius.state,
            "others": changes.blast_radius.others, "pods": changes.blast_radius.pods,
        },
        "notes": list(changes.notes),
        "lines": detail_lines(changes),
        "requests": changes.requests,
    }  # fmt: skip


def _config_fields(change: ConfigChange) -> dict[str, Any]:
    return {
        "kind": change.kind, "name": change.name, "at": change.at,
        "seconds_before": change.seconds_before, "manager": change.manager,
        "keys": list(change.keys), "created": change.created, "read_by": list(change.read_by),
    }  # fmt: skip


def detail_lines(changes: Changes) -> list[str]:
    """What was found, one line each, under the likely cause."""
    lines = [_rollout_line(changes.rollout)] if changes.rollout else []
    lines += [_config_line(change) for change in changes.configs]
    node = changes.node
    if node is not None:
        said = [*node.pressure, *(f"taint {t}" for t in node.taints)]
        if node.evictions:
            said.append(f"{node.evictions} Pods evicted")
        lines.append(f"node {node.name}: {', '.join(said) or 'no pressure, no taints'}")
    blast = changes.blast_radius
    if blast is not None:
        lines.append(
            f"{blast.others} other Pods of {blast.owner} are {blast.state} now "
            f"({blast.pods} counted)"
        )
    return lines + [f"not known: {note}" for note in changes.notes]


def _rollout_line(rollout: Rollout) -> str:
    told = "; ".join(
        f"{c.field}{' of ' + c.container if c.container else ''}: "
        + (f"{c.before} -> {c.after}" if c.before else c.after)
        for c in rollout.changes
    )
    more = f" (+{rollout.more} more)" if rollout.more else ""
    return (
        f"rollout {rollout.owner} revision {rollout.revision} at {rollout.at} "
        f"({rollout.seconds_before}s before) by {rollout.manager}: {told or 'no difference'}{more}"
    )


def _config_line(change: ConfigChange) -> str:
    done = "created" if change.created else "written"
    keys = ", ".join(change.keys) or "no data keys"
    return (
        f"{change.kind} {change.name} {done} at {change.at} ({change.seconds_before}s before) "
        f"by {change.manager}: keys {keys}; read by {', '.join(change.read_by) or '?'}"
    )
