"""``rules test --explain`` shows the body each sink of a matched rule would send, firing and
(with ``--resolved``) resolved, with the fingerprint the service would use."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from notifier.cli import main
from notifier.notifications import FACT_NAMES
from notifier.rules.facts.contexts import DIGEST_NAMES, SINGLE_NAMES
from tests.unit.rules.builders import CRASHLOOP_STATUS, POD_JSON, changed
from tests.unit.sinks.test_showing import unfolded
from tests.unit.sinks.told import config_text

SINKS: list[dict[str, object]] = [
    {"type": "alertmanager", "urls": ["http://am-0:9093", "http://am-1:9093"]},
    {"type": "webhook", "url": "https://hooks.example/x"},
]


def _run(tmp_path: Path, sink: dict[str, object], *extra: str) -> None:
    config, old, new = tmp_path / "c.yaml", tmp_path / "old.yaml", tmp_path / "new.yaml"
    config.write_text(config_text(sink))
    old.write_text(yaml.safe_dump(POD_JSON))
    version = {**POD_JSON["metadata"], "resourceVersion": "48214"}
    new.write_text(yaml.safe_dump(changed(POD_JSON, status=CRASHLOOP_STATUS, metadata=version)))
    argv = ["rules", "test", str(config), "--old", str(old), "--new", str(new), "--explain"]
    assert main([*argv, *extra]) == 0


def _body(out: str, status: str) -> Any:
    head = f"--- {status} body of rule pod-crash for sink out\n"
    _, _, rest = out.partition(head)
    fingerprint, _, rest = rest.partition("\n")
    assert fingerprint.startswith("fingerprint: ") and len(fingerprint) > len("fingerprint: ")
    return unfolded(rest.split("\n--- ", 1)[0])


def test_the_alertmanager_body_firing_and_resolved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(tmp_path, SINKS[0])
    [alert] = _body(capsys.readouterr().out, "firing")
    assert alert["labels"]["alertname"] == "pod-crash" and "endsAt" not in alert
    _run(tmp_path, SINKS[0], "--resolved")
    [ended] = _body(capsys.readouterr().out, "resolved")
    assert ended["labels"] == alert["labels"] and "endsAt" in ended


def test_the_webhook_body_is_its_payload(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(tmp_path, SINKS[1], "--resolved")
    payload = _body(capsys.readouterr().out, "resolved")
    assert isinstance(payload, dict) and payload["status"] == "resolved"


def test_facts_hold_the_template_variables_but_the_objects() -> None:
    rules_add = {"rule_labels", "send_resolved", "fired_at", "told_states", "context", "folded"}
    assert (SINGLE_NAMES | DIGEST_NAMES) - {"obj", "old", "new"} | rules_add == FACT_NAMES


def test_the_alertmanager_description_reads_a_line_at_a_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(tmp_path, SINKS[0])
    out = capsys.readouterr().out
    assert (
        '"description": "Reason: CrashLoopBackOff: back-off 40s restarting failed container=web\\n"'
        in out
    )
    assert '"Container: web, exit code 137, 3 restarts, last terminated: OOMKilled\\n"' in out
