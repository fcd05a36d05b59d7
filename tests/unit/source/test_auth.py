"""Authorization headers: token files that rotate, exec plugins run as kubectl runs them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from notifier.source.auth import AuthError, ExecPlugin, TokenFile

PLUGIN = """\
import json, os, sys
from pathlib import Path
here = Path(sys.argv[1])
runs = here / "runs"
runs.write_text(str(int(runs.read_text() or 0) + 1) if runs.exists() else "1")
(here / "info").write_text(os.environ["KUBERNETES_EXEC_INFO"] + "\\n" + os.environ.get("TEAM", ""))
mode = (here / "mode").read_text() if (here / "mode").exists() else "ok"
if mode == "fail":
    print("line one", file=sys.stderr); print("login required", file=sys.stderr); sys.exit(3)
if mode == "junk":
    print("not json"); sys.exit(0)
status = {"token": "tok-" + runs.read_text()}
if mode == "expiring":
    status["expirationTimestamp"] = "2030-01-01T00:01:00Z"
print(json.dumps({"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                  "status": status}))
"""


class Clock:
    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def plugin(tmp_path: Path, clock: Clock, mode: str = "ok") -> ExecPlugin:
    (tmp_path / "plugin.py").write_text(PLUGIN)
    (tmp_path / "mode").write_text(mode)
    return ExecPlugin(
        sys.executable,
        [str(tmp_path / "plugin.py"), str(tmp_path)],
        {"TEAM": "infra"},
        "client.authentication.k8s.io/v1",
        install_hint="install it with your package manager",
        clock=clock,
    )


def runs(tmp_path: Path) -> int:
    return int((tmp_path / "runs").read_text())


def test_token_file_is_read_again_after_a_minute(tmp_path: Path) -> None:
    token, clock = tmp_path / "token", Clock()
    token.write_text("first\n")
    auth = TokenFile(token, clock=clock)
    assert auth.headers() == {"Authorization": "Bearer first"}

    token.write_text("second")
    clock.now = 59
    assert auth.headers() == {"Authorization": "Bearer first"}
    clock.now = 61
    assert auth.headers() == {"Authorization": "Bearer second"}

    token.unlink()  # mid-rotation: the last good token is kept
    clock.now = 200
    assert auth.headers() == {"Authorization": "Bearer second"}


def test_token_file_missing_or_empty_at_first_read(tmp_path: Path) -> None:
    with pytest.raises(AuthError, match="cannot read the token file"):
        TokenFile(tmp_path / "absent").headers()
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(AuthError, match="is empty"):
        TokenFile(tmp_path / "empty").headers()


def test_exec_plugin_token_is_cached_until_it_expires(tmp_path: Path) -> None:
    expires = 1893456060.0  # 2030-01-01T00:01:00Z
    clock = Clock(expires - 100)
    auth = plugin(tmp_path, clock, "expiring")

    assert auth.headers() == {"Authorization": "Bearer tok-1"}
    clock.now = expires - 11
    assert auth.headers() == {"Authorization": "Bearer tok-1"}
    assert runs(tmp_path) == 1
    clock.now = expires - 9  # within the margin: asked again before it expires
    assert auth.headers() == {"Authorization": "Bearer tok-2"}

    info, team = (tmp_path / "info").read_text().split("\n")
    assert json.loads(info)["spec"] == {"interactive": False}
    assert team == "infra"


def test_a_401_makes_the_plugin_run_again(tmp_path: Path) -> None:
    auth = plugin(tmp_path, Clock())
    auth.headers()
    auth.headers()
    assert runs(tmp_path) == 1
    auth.invalidate()
    assert auth.headers() == {"Authorization": "Bearer tok-2"}


@pytest.mark.parametrize(
    ("mode", "fragment"),
    [("fail", "exited with 3: login required"), ("junk", "did not print an ExecCredential")],
)
def test_plugin_failures_are_clear(tmp_path: Path, mode: str, fragment: str) -> None:
    with pytest.raises(AuthError, match=fragment):
        plugin(tmp_path, Clock(), mode).headers()


def test_a_missing_plugin_shows_the_install_hint() -> None:
    auth = ExecPlugin("kn-no-such-plugin", [], {}, "v1", install_hint="brew install it")
    with pytest.raises(AuthError, match=r"not found \(brew install it\)"):
        auth.headers()
