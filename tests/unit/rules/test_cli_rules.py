"""``kube-notifier rules check|test``, called in-process with argv."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
import yaml

from notifier.cli import main
from notifier.cli.commands import add_rules_commands
from notifier.exits import Exit
from tests.unit.rules.builders import CRASHLOOP_STATUS, POD_JSON, SERVICE_JSON, changed

EXAMPLE = Path(__file__).parents[3] / "config.example.yaml"
BROKEN = Path(__file__).parents[2] / "data" / "configs" / "broken" / "many-errors.yaml"


def _write(tmp_path: Path, name: str, data: object) -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return path


def test_check_accepts_the_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "check", str(EXAMPLE)]) == 0
    assert "OK: 16 rules, 3 sinks (2 enabled)" in capsys.readouterr().out


def test_check_says_what_rbac_the_enrich_parts_need(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rule = {"name": "crashes", "match": {"kinds": ["Pod"]}, "sinks": ["out"], "enrich": ["logs"]}
    config = {"sinks": [{"name": "out", "type": "console"}], "rules": [rule]}
    assert main(["rules", "check", str(_write(tmp_path, "c.yaml", config))]) == 0
    assert "rules crashes enrich with logs: the service account needs get on pods/log" in (
        capsys.readouterr().out
    )


def test_check_reports_every_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "check", str(BROKEN)]) == Exit.CONFIG
    out = capsys.readouterr().out
    assert out.startswith("6 errors in config")
    assert f"{BROKEN}:11:13: rules[0].sinks[0]: unknown sink 'slak'" in out


def test_check_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "check", str(tmp_path / "nope.yaml")]) == Exit.CONFIG
    assert "cannot read" in capsys.readouterr().out


def test_test_shows_transition_matches_and_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _write(tmp_path, "old.yaml", POD_JSON)
    new = _write(
        tmp_path,
        "new.yaml",
        changed(
            POD_JSON,
            status=CRASHLOOP_STATUS,
            metadata={**POD_JSON["metadata"], "resourceVersion": "48214"},
        ),
    )
    code = main(
        [
            "rules",
            "test",
            str(EXAMPLE),
            "--old",
            str(old),
            "--new",
            str(new),
            "--explain",
            "--payload",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "Transition: Pod shop/web-7d4b9c6f5d-x2x9q updated (origin live)" in out
    assert "reached: " in out and "CrashLoopBackOff" in out
    assert "Matched: pod-failures -> webhook" in out
    assert "Matched: pod-failures-console -> console" in out
    assert "- drop-kube-system [not matched]: namespace 'shop' does not match" in out
    assert "- stuck-rollouts [not reached]: rule 'pod-failures-console' matched first" in out
    assert "--- message of rule pod-failures -> webhook (grouped by namespace, transition)" in out
    assert "created by Deployment web" in out
    assert '"schema": "kube-notifier/v1"' in out


def test_test_a_delete_and_namespace_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    service = _write(tmp_path, "svc.yaml", SERVICE_JSON)
    assert (
        main(
            ["rules", "test", str(EXAMPLE), "--old", str(service), "--namespace-labels", "env=prod"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "Service shop/web deleted" in out
    assert "Matched: service-changes -> console" in out


def test_test_reports_no_transition(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pod = _write(tmp_path, "pod.yaml", POD_JSON)
    assert main(["rules", "test", str(EXAMPLE), "--old", str(pod), "--new", str(pod)]) == 0
    assert "No transition" in capsys.readouterr().out


def test_test_rejects_non_objects(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = _write(tmp_path, "cm.yaml", {"kind": "ConfigMap"})
    assert main(["rules", "test", str(EXAMPLE), "--new", str(other)]) == 1
    assert "expected an object whose 'kind' is one of Pod, Deployment" in capsys.readouterr().out
    assert main(["rules", "test", str(EXAMPLE)]) == 1


def test_commands_plug_into_another_parser() -> None:
    parser = argparse.ArgumentParser(prog="kube-notifier")
    add_rules_commands(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["rules", "check", "x.yaml"])
    assert callable(args.handler)


def test_check_refuses_what_run_would_refuse_to_start_with(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "missing")
    config = {
        "sinks": [
            {"name": "a", "type": "webhook", "url_file": missing},
            {"name": "b", "type": "webhook", "url": "ftp://example/x"},
            {"name": "c", "type": "webhook", "url": "http://x/", "hmac_secret_file": missing},
            {"name": "d", "type": "slack", "token_file": missing, "channel": "#ops"},
        ],
        "rules": [{"name": "r", "sinks": ["a", "b", "c", "d"]}],
    }
    assert main(["rules", "check", str(_write(tmp_path, "c.yaml", config))]) == Exit.CONFIG
    out = capsys.readouterr().out
    for sink, field in (("a", "url"), ("b", "url"), ("c", "hmac_secret"), ("d", "token")):
        assert f"sink {sink!r}" in out and field in out, out
    assert "OK" not in out


def test_check_without_files_still_checks_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "only-in-the-pod")
    config = {
        "sinks": [
            {"name": "a", "type": "webhook", "url_file": missing, "hmac_secret_file": missing},
            {"name": "b", "type": "webhook", "url": "ftp://example/x"},
        ],
        "rules": [{"name": "r", "sinks": ["a", "b"]}],
    }
    path = _write(tmp_path, "c.yaml", config)
    assert main(["rules", "check", "--no-files", str(path)]) == Exit.CONFIG
    out = capsys.readouterr().out
    assert "sink 'b'" in out and "sink 'a'" not in out


def test_check_says_what_rbac_the_changes_part_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rule = {"name": "crashes", "match": {"kinds": ["Pod"]}, "sinks": ["out"], "enrich": ["changes"]}
    config = {"sinks": [{"name": "out", "type": "console"}], "rules": [rule]}
    assert main(["rules", "check", str(_write(tmp_path, "c.yaml", config))]) == 0
    out = capsys.readouterr().out
    assert "rules crashes enrich with changes: the service account needs get on pods" in out
    assert "get/list on replicasets, controllerrevisions, configmaps" in out
