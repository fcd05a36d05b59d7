"""``rules timeline``: states with times in, what the rules do over time out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from notifier.cli import main

DATA = Path(__file__).parents[2] / "data" / "timeline"
COMPLETE, ROLLING, BACK = (DATA / f"db-{n}.yaml" for n in ("complete", "rolling", "rolled-back"))
RULE: dict[str, Any] = {
    "name": "stuck",
    "match": {"kinds": ["StatefulSet"], "to": ["Progressing"], "for": "15m"},
    "sinks": ["chat"],
    "send_resolved": True,
    "repeat_interval": "1h",
    "escalate": [{"after": "30m", "sinks": ["pager"]}],
}
CONFIG: dict[str, Any] = {
    "watch": {"kinds": ["StatefulSet"]},
    "sinks": [{"name": "chat", "type": "console"}, {"name": "pager", "type": "console"}],
    "rules": [RULE],
}


def _timeline(tmp_path: Path, capsys: pytest.CaptureFixture[str], *states: str) -> list[str]:
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(CONFIG))
    assert main(["rules", "timeline", str(config), *states, "--until", "2h"]) == 0
    return [line.strip() for line in capsys.readouterr().out.splitlines()]


def test_pending_fires_escalates_reminds_and_resolves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _timeline(tmp_path, capsys, f"{COMPLETE}@0s", f"{ROLLING}@2m", f"{BACK}@3h")
    assert lines == [
        "+0s  StatefulSet shop/db: added -> Available, Complete",
        "+2m  StatefulSet shop/db: Available, Complete -> Progressing, Unavailable",
        "+2m    pending: stuck (fires at +17m if it stays)",
        "+17m  fires: stuck -> chat",
        "+47m  escalates: stuck -> pager",
        "+1h17m  reminds: stuck -> chat",
        "+2h17m  reminds: stuck -> chat",
        "+3h  StatefulSet shop/db: Progressing, Unavailable -> Available, Complete",
        "+3h    recovering: stuck (incident over at +3h1m if it stays so)",
        "+3h1m  resolved: stuck -> chat, pager",  # recovered for the recovery window
    ]


def _config_with(tmp_path: Path, **rule: Any) -> Path:
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(dict(CONFIG, rules=[{**RULE, **rule}])))
    return config


def test_trouble_back_within_the_window_is_the_same_incident(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config_with(tmp_path, recovery_window="10m")
    states = [f"{COMPLETE}@0s", f"{ROLLING}@2m", f"{BACK}@30m", f"{ROLLING}@35m", f"{BACK}@50m"]
    assert main(["rules", "timeline", str(config), *states, "--until", "1h"]) == 0
    lines = [line.strip() for line in capsys.readouterr().out.splitlines()]
    assert lines[4:] == [
        "+30m  StatefulSet shop/db: Progressing, Unavailable -> Available, Complete",
        "+30m    recovering: stuck (incident over at +40m if it stays so)",
        "+35m  StatefulSet shop/db: Available, Complete -> Progressing, Unavailable",
        "+35m    pending: stuck (fires at +50m if it stays)",  # told already: folded then
        "+35m    in trouble again: stuck (the same incident)",
        "+47m  escalates: stuck -> pager",  # 30m after it was told: the incident held it
        "+50m  StatefulSet shop/db: Progressing, Unavailable -> Available, Complete",
        "+50m    recovering: stuck (incident over at +1h if it stays so)",
        "+1h  resolved: stuck -> chat, pager",
    ]


def test_an_incident_with_nothing_to_resolve_says_when_it_ends(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config_with(tmp_path, send_resolved=False, escalate=[])
    states = [f"{COMPLETE}@0s", f"{ROLLING}@2m", f"{BACK}@20m"]
    assert main(["rules", "timeline", str(config), *states, "--until", "1h"]) == 0
    lines = [line.strip() for line in capsys.readouterr().out.splitlines()]
    assert lines[-2:] == [
        "+20m    recovering: stuck (incident over at +21m if it stays so)",
        "+21m  incident over: stuck (nothing to tell: no send_resolved)",
    ]


def test_leaving_before_for_is_cancelled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _timeline(tmp_path, capsys, f"{COMPLETE}@0s", f"{ROLLING}@2m", f"{BACK}@10m")
    assert lines[-1] == "+10m    cancelled: stuck (left before its for:)"
    assert not any("fires:" in line for line in lines)


def test_a_list_of_states_is_played_every_so_often(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    documents = [yaml.safe_load(p.read_text()) for p in (COMPLETE, ROLLING, BACK) * 3]
    listed = tmp_path / "watch.yaml"
    listed.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": documents}))
    config = dict(
        CONFIG, rules=[{**CONFIG["rules"][0], "flapping": {"changes": 4, "within": "10m"}}]
    )
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    code = main(
        ["rules", "timeline", str(tmp_path / "config.yaml"), f"{listed}@0s", "--every", "1m"]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "flapping: stuck -> chat" in out
    assert "steady again (no longer flapping): stuck -> chat" in out


def test_a_bad_state_says_which(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(CONFIG))
    broken = tmp_path / "broken.yaml"
    broken.write_text("kind: Nothing\n")
    assert main(["rules", "timeline", str(config), f"{broken}@0s"]) == 1
    assert f"error: {broken}: expected an object" in capsys.readouterr().out


def test_rules_test_says_a_for_rule_only_starts_pending(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(CONFIG))
    assert main(["rules", "test", str(config), "--old", str(COMPLETE), "--new", str(ROLLING)]) == 0
    out = capsys.readouterr().out
    assert "Matched: stuck -> chat (pending: tells only if it stays 15m; see rules timeline)" in out
