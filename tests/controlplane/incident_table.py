"""Issue #37's table: messages per incident, per config, on a real node.

    .venv/bin/python -m tests.controlplane.incident_table [--record tests/data/kubelet]

Starts a control plane of its own, a real node and two kube-notifiers (the rules
docs/rules.md recommends, ``tests/controlplane/rules/documented.yaml``, and
``config.example.yaml``), plays the incidents (tests/controlplane/scenario.py) and prints
one row per incident: how many webhook messages each notifier sent, resolutions
included, and what the person wanted. ``--record DIR`` also writes the kubelet's status
story of each incident to ``DIR/<incident>.yaml``; ``--messages`` prints every message.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import yaml

from tests.controlplane import node
from tests.controlplane.cluster import ControlPlane
from tests.controlplane.incidents import INCIDENTS
from tests.controlplane.node import CONTROLLER_ARGS, RealNode
from tests.controlplane.scenario import Notifier, Outcome, Scenario, dump

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = {
    "documented rules": ROOT / "tests" / "controlplane" / "rules" / "documented.yaml",
    "config.example.yaml": ROOT / "config.example.yaml",
}


def table(outcome: Outcome) -> str:
    names = list(CONFIGS)
    lines = [
        "| incident | wanted | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for incident in INCIDENTS:
        resolved = f" + {incident.resolved} resolved" if incident.resolved else ""
        wanted = f"{incident.wanted}{resolved}"
        cells = []
        for name in names:
            told = outcome.of(name, incident.name)
            note = f" ({told.resolutions} resolved)" if told.resolutions else ""
            cells.append(f"{told.count}{note}")
        lines.append(f"| {incident.title} | {wanted} | " + " | ".join(cells) + " |")
    totals = [sum(t.count for t in outcome.told[name].values()) for name in names]
    lines.append("| **total** | | " + " | ".join(str(t) for t in totals) + " |")
    return "\n".join(lines)


def record(outcome: Outcome, directory: Path) -> None:
    """Each incident's status story, times relative to the incident's first change."""
    directory.mkdir(parents=True, exist_ok=True)
    for incident in INCIDENTS:
        stories = outcome.recorder.stories(incident.name)
        if incident.name == "node-lost":
            stories = outcome.recorder.stories("")
        if not stories:
            continue
        first = min(story[0].seconds for story in stories.values() if story)
        data = {
            "incident": incident.title,
            "objects": {
                name: [{"t": round(c.seconds - first, 1), **c.summary} for c in story]
                for name, story in sorted(stories.items())
            },
        }
        text = "# Recorded on a real node by `python -m tests.controlplane.incident_table`.\n"
        text += yaml.safe_dump(data, sort_keys=False, width=100)
        (directory / f"{incident.name}.yaml").write_text(text)


def run() -> Outcome:
    plane = ControlPlane()
    try:
        plane.start()
        plane.start_full_tier(nodes=0, kwok=False, controller_args=CONTROLLER_ARGS)
        with RealNode(plane) as real, tempfile.TemporaryDirectory(prefix="kn-table-") as tmp:
            notifiers = {
                name: Notifier(name.split()[0], config, plane, Path(tmp))
                for name, config in CONFIGS.items()
            }
            scenario = Scenario(plane, real, notifiers)
            try:
                return scenario.run()
            finally:
                scenario.recorder.stop()
                for notifier in notifiers.values():
                    notifier.stop()
    finally:
        plane.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", type=Path, help="write the status stories here")
    parser.add_argument("--messages", action="store_true", help="print every message too")
    args = parser.parse_args(argv)
    if reason := node.unavailable():
        print(f"cannot run a real node here: {reason}", file=sys.stderr)
        return 2
    outcome = run()
    print(table(outcome))
    print(f"\n(played in {outcome.seconds:.0f} s)")
    if args.messages:
        print(dump(outcome))
    if args.record:
        record(outcome, args.record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
