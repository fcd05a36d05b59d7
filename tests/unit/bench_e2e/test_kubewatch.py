"""kubewatch as a subject: its config, where its binary comes from, and when it is ready."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bench.e2e import kubewatch, runner
from bench.e2e.kubewatch import Kubewatch, config_yaml, newest_release, resolve, synced_kinds
from bench.e2e.workloads import LARGE_OBJECTS

READY = 'time="2026-11-24T06:00:00Z" level=info msg="Kubewatch controller synced and ready"'


def test_the_config_watches_what_our_config_watches_and_posts_to_the_receiver() -> None:
    config = yaml.safe_load(config_yaml("http://127.0.0.1:4321/hook"))
    assert config["handler"] == {"webhook": {"url": "http://127.0.0.1:4321/hook"}}
    assert config["resource"] == {"pod": True, "deployment": True, "services": True}
    assert config["namespace"] == ""  # every namespace


def test_ready_lines_are_read_per_kind() -> None:
    log = "\n".join(
        [
            'time="..." level=info msg="Starting kubewatch controller" pkg=kubewatch-Pod',
            f"{READY} pkg=kubewatch-Pod",
            'time="..." level=info msg="Processing add to Pod: bench-0/a" pkg=kubewatch-Pod',
            f"{READY} pkg=kubewatch-Service",
        ]
    )
    assert synced_kinds(log) == {"Pod", "Service"}


def test_the_newest_release_tag_is_built_by_default() -> None:
    tags = ["v2.9.0", "v2.15.0", "v2.14.3", "v3.0.0-rc1", "latest", "v2.15"]
    assert newest_release(tags) == "v2.15.0"
    assert newest_release(["latest"]) is None


def test_without_a_source_or_binary_kubewatch_is_skipped_with_the_way_to_include_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in (kubewatch.SRC_ENV, kubewatch.BIN_ENV, kubewatch.TAG_ENV):
        monkeypatch.delenv(name, raising=False)
    found = resolve(None, None, None)
    assert found.binary is None
    assert "--kubewatch-src" in found.skipped
    assert kubewatch.SRC_ENV in found.skipped
    not_a_binary = tmp_path / "kubewatch"
    not_a_binary.write_text("")
    assert "not an executable" in resolve(str(not_a_binary), None, None).skipped


def test_a_source_that_does_not_build_is_skipped_not_fatal(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(kubewatch, "cache_root", lambda: tmp_path / "cache")
    found = resolve(None, str(tmp_path / "no-such-repository"), None)
    assert found.binary is None
    assert found.skipped.startswith(f"could not build from {tmp_path / 'no-such-repository'}")


def git(repo: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def release(repo: Path, tag: str) -> None:
    main = f'package main\n\nimport "fmt"\n\nfunc main() {{ fmt.Println("{tag}") }}\n'
    (repo / "main.go").write_text(main)
    git(repo, "add", ".")
    git(repo, "commit", "-qm", tag)
    git(repo, "tag", tag)


@pytest.mark.skipif(shutil.which("go") is None, reason="needs the Go toolchain")
def test_the_newest_release_is_built_from_the_repository_once_and_cached(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    repo = tmp_path / "src"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "go.mod").write_text("module example.com/fake\n\ngo 1.22\n")
    for tag in ("v0.9.0", "v0.10.0", "v1.0.0-rc1"):
        release(repo, tag)
    monkeypatch.setattr(kubewatch, "cache_root", lambda: tmp_path / "cache")
    found = resolve(None, str(repo), None)
    assert found.binary == tmp_path / "cache" / "v0.10.0" / "kubewatch"
    said = subprocess.run([found.binary], check=True, capture_output=True, text=True).stdout
    assert said == "v0.10.0\n"
    built_at = found.binary.stat().st_mtime_ns
    assert resolve(None, str(repo), None).binary == found.binary
    assert found.binary.stat().st_mtime_ns == built_at
    assert resolve(None, str(repo), "v0.9.0").binary == tmp_path / "cache" / "v0.9.0" / "kubewatch"


class StandIn(Kubewatch):
    """kubewatch's readiness protocol (its controllers' log lines on stderr), from a script."""

    def __init__(self, work_dir: Path, program: str) -> None:
        super().__init__(work_dir, work_dir / "kubeconfig", "http://127.0.0.1:9/hook", Path("-"))
        self.program = program

    def argv(self) -> list[str]:
        return [sys.executable, "-c", self.program]


def test_ready_when_every_kinds_controller_has_synced(tmp_path: Path) -> None:
    say = "import sys, time; say = lambda kind: print({!r} + ' pkg=kubewatch-' + kind, "
    program = say.format(READY) + (
        "file=sys.stderr, flush=True); say('Pod'); say('Deployment'); time.sleep(0.3); "
        "say('Service'); input()"
    )
    subject = StandIn(tmp_path, program)
    subject.start()
    try:
        assert 0.3 <= subject.wait_ready(timeout=30) < 30
    finally:
        subject.stop()
    subject.start()  # a second start reads only what the new process logs
    try:
        assert subject.wait_ready(timeout=30) >= 0.3
    finally:
        subject.stop()


def test_its_environment_is_ours_not_the_callers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("KW_SECRET", "true")  # would make it watch Secrets too
    monkeypatch.setenv("LOG_LEVEL", "debug")
    env = Kubewatch(tmp_path, tmp_path / "kubeconfig", "http://x/hook", Path("kw")).env()
    assert "KW_SECRET" not in env
    assert "LOG_LEVEL" not in env
    assert env["KW_CONFIG"] == str(tmp_path / "kubewatch")
    assert env["KUBECONFIG"] == str(tmp_path / "kubeconfig")
    assert env["LISTEN_ADDRESS"].startswith("127.0.0.1:")
    assert (tmp_path / "kubewatch" / ".kubewatch.yaml").read_text() == config_yaml("http://x/hook")


def test_kubewatch_takes_its_turn_after_ours_before_the_python_peers_only_when_found(
    tmp_path: Path,
) -> None:
    args = (tmp_path, tmp_path / "kubeconfig", "http://x/hook")
    skipped = kubewatch.Found(skipped="no source")
    workload = LARGE_OBJECTS
    assert [s.name for s in runner.subjects(*args, skipped, workload)] == [
        "kube-notifier",
        "lean",
        "baseline",
    ]
    found = kubewatch.Found(Path("/opt/kubewatch"), about="given")
    names = [s.name for s in runner.subjects(*args, found, workload)]
    assert names == ["kube-notifier", "kubewatch", "lean", "baseline"]
