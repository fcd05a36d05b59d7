"""The "Likely cause" line: the first of a fixed, ordered list of causes that holds.

1. a rollout within the window that changed the failing container's image,
   or the config it reads (command, args, env, envFrom, volumes);
2. a ConfigMap or Secret the failing container reads, written within the
   window (an edit before a creation; the newest first);
3. a rollout within the window that changed anything else of the template
   (resources, probes, other containers);
4. the Node under pressure (memory, disk, PIDs, not ready), or Pods evicted from it;
5. the container OOMKilled, with its memory limit;
6. an image that cannot be pulled, with the registry's reason;
7. otherwise "no change found in the last <window>".

Deterministic: the same changes give the same line. Text only from values
made safe when read; each receiver escapes it for its own markup.
"""

from __future__ import annotations

from notifier.enrichment.changes import ConfigChange, NodeState, Rollout
from notifier.enrichment.surroundings import Trouble

_CONFIG_FIELDS = ("command", "args", "env", "envFrom", "volumes")
_PULL_FAILURES = ("ImagePullBackOff", "ErrImagePull", "InvalidImageName")


def likely_cause(
    *,
    window_seconds: float,
    trouble: Trouble,
    rollout: Rollout | None,
    configs: tuple[ConfigChange, ...],
    node: NodeState | None,
) -> str:
    for cause in (
        _rollout_of_what_it_reads(rollout, trouble),
        _config(configs, trouble),
        _rollout(rollout, "changed"),
        _node(node),
        _trouble(trouble),
    ):
        if cause:
            return cause
    return f"no change found in the last {duration_text(window_seconds)}"


def duration_text(seconds: float) -> str:
    whole = int(seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if whole >= size and whole % size == 0:
            return f"{whole // size}{unit}"
    return f"{whole}s"


def _rollout_of_what_it_reads(rollout: Rollout | None, trouble: Trouble) -> str:
    if rollout is None:
        return ""
    for change in rollout.changes:
        mine = change.container in ("", trouble.container) or not trouble.container
        if mine and change.field in ("image", *_CONFIG_FIELDS):
            return _rollout(rollout, _what(change.field, change.container, change.before,
                                           change.after))  # fmt: skip
    return ""


def _what(field: str, container: str, before: str, after: str) -> str:
    if field == "image":
        return f"image of {container} {before} -> {after}"
    if field == "env":
        return f"env of {container}: {after}"
    where = f" of {container}" if container else ""
    return f"{field}{where} {before} -> {after}"


def _rollout(rollout: Rollout | None, what: str) -> str:
    if rollout is None:
        return ""
    fields = ", ".join(dict.fromkeys(c.field for c in rollout.changes))
    told = what if what != "changed" else (
        f"changed {fields}" if fields else "a restart (no difference in what is compared)"
    )  # fmt: skip
    return (
        f"rollout of {rollout.owner} to revision {rollout.revision}, "
        f"{rollout.seconds_before}s before, by {rollout.manager}: {told}"
    )


def _config(configs: tuple[ConfigChange, ...], trouble: Trouble) -> str:
    read = [c for c in configs if not trouble.container or trouble.container in c.read_by]
    read.sort(key=lambda c: (c.created, c.seconds_before))
    if not read:
        return ""
    change = read[0]
    done = "created" if change.created else "changed"
    keys = f": keys {', '.join(change.keys)}" if change.keys else ""
    return (
        f"{change.kind} {change.name} {done} {change.seconds_before}s before, "
        f"by {change.manager}{keys}"
    )


def _node(node: NodeState | None) -> str:
    if node is None or not (node.pressure or node.evictions):
        return ""
    said = ", ".join(node.pressure)
    evicted = f"{node.evictions} Pods evicted from it" if node.evictions else ""
    return f"Node {node.name}: {', '.join(s for s in (said, evicted) if s)}"


def _trouble(trouble: Trouble) -> str:
    if trouble.reason == "OOMKilled":
        return f"{trouble.container} OOMKilled ({trouble.detail})"
    if trouble.reason in _PULL_FAILURES:
        reason = f": {trouble.detail}" if trouble.detail else ""
        return f"image of {trouble.container} cannot be pulled ({trouble.reason}){reason}"
    return ""
