"""rules test with silences: a silence in force that mutes a matched rule is named, and the rule
sends nothing; one that ended, or matches something else, changes nothing."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import yaml

from notifier.cli import main
from tests.unit.rules.builders import CRASHLOOP_STATUS, POD_JSON, changed

EXAMPLE = Path(__file__).parents[3] / "config.example.yaml"


def _silence(sid: str, matchers: dict[str, str], *, ends_in: float = 3600) -> dict[str, object]:
    now = time.time()
    return {"id": sid, "matchers": matchers, "starts_at": now - 60, "ends_at": now + ends_in,
            "comment": "deploying the fix", "created_by": "alice"}  # fmt: skip


def _test(tmp_path: Path, silences: Path, capsys: pytest.CaptureFixture[str]) -> str:
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(yaml.safe_dump(POD_JSON))
    version = {**POD_JSON["metadata"], "resourceVersion": "48214"}
    new.write_text(yaml.safe_dump(changed(POD_JSON, status=CRASHLOOP_STATUS, metadata=version)))
    argv = ["rules", "test", str(EXAMPLE), "--old", str(old), "--new", str(new), "--explain",
            "--silences", str(silences)]  # fmt: skip
    assert main(argv) == 0
    return capsys.readouterr().out


def test_a_silence_in_force_is_named_and_its_rule_sends_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "silences.json"
    path.write_text(json.dumps([
        _silence("s-shop", {"namespace": "shop", "rule": "pod-failures"}),
        _silence("s-ended", {"namespace": "shop"}, ends_in=-10),
        _silence("s-other", {"namespace": "payments"}),
    ]))  # fmt: skip
    out = _test(tmp_path, path, capsys)
    assert (
        "Silenced: pod-failures by silence s-shop (namespace=shop,rule=pod-failures; until" in out
    )
    assert "alice: deploying the fix)" in out
    assert "--- message of rule pod-failures ->" not in out
    assert "--- message of rule pod-failures-console -> console" in out  # not silenced
    assert "s-ended" not in out and "s-other" not in out


def test_the_silences_configmap_as_kubectl_shows_it_works_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    silences = [_silence("s-all", {"kind": "Pod"})]
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kn-silences"},
                  "data": {"silences.json": json.dumps(silences)}}  # fmt: skip
    path = tmp_path / "cm.yaml"
    path.write_text(yaml.safe_dump(config_map))
    out = _test(tmp_path, path, capsys)
    assert "Silenced: pod-failures by silence s-all" in out
    assert "Silenced: pod-failures-console by silence s-all" in out
    assert "--- message of rule" not in out


def test_a_broken_silence_is_said_and_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "silences.json"
    path.write_text(json.dumps([_silence("s-bad", {"colour": "red"})]))
    out = _test(tmp_path, path, capsys)
    assert "Silence left out: silence s-bad: unknown matcher 'colour'" in out
    assert "--- message of rule pod-failures ->" in out


def test_a_file_that_is_not_silences_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "silences.json"
    path.write_text('{"not": "a list"}')
    old = tmp_path / "old.yaml"
    old.write_text(yaml.safe_dump(POD_JSON))
    argv = ["rules", "test", str(EXAMPLE), "--old", str(old), "--silences", str(path)]
    assert main(argv) == 1
    assert "not a list of silences" in capsys.readouterr().out
