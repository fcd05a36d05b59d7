"""The image's install, performed as the Dockerfile writes it, without a Docker engine.

The build context is copied as .dockerignore makes it; the builder stage's ENV and
RUN steps run as written (/opt/kube-notifier becomes a temporary directory, ``python``
is this interpreter); then the runtime stage's ENV and ENTRYPOINT are used to run
``kube-notifier --version``, ``run --help`` and ``rules check config.example.yaml``
from the new virtualenv. It downloads the pinned dependencies from the package
index (pip's cache makes later runs quicker), so it is slow: one test, several minutes
allowed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.test_dockerfile import REPO, VENV, Dockerfile, build_context, load

pytestmark = pytest.mark.integration


def _shim(directory: Path) -> Path:
    """A bin directory whose ``python`` is this interpreter, as the image's is its own."""
    directory.mkdir()
    python = directory / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    return directory


def _stage_env(values: dict[str, str], venv: Path, base: dict[str, str]) -> dict[str, str]:
    env = dict(base)
    for key, value in values.items():
        env[key] = value.replace(VENV, str(venv)).replace("$PATH", base.get("PATH", ""))
    return env


def _builder(dockerfile: Dockerfile, venv: Path, bin_dir: Path) -> dict[str, str]:
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(Path.home())}
    env = _stage_env(dockerfile.builder.env(), venv, env)
    # The image build keeps no pip cache (a layer would hold it); here the cache only
    # makes the next run quicker and changes nothing that is installed.
    env.pop("PIP_NO_CACHE_DIR")
    return env


def _run(argv: list[str], env: dict[str, str], cwd: Path) -> str:
    done = subprocess.run(
        argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, f"{argv} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.mark.timeout(900)
def test_the_image_install_steps_give_a_working_kube_notifier(tmp_path: Path) -> None:
    dockerfile = load()
    context = build_context(tmp_path / "src")
    venv = tmp_path / "opt" / "kube-notifier"
    env = _builder(dockerfile, venv, _shim(tmp_path / "bin"))
    assert dockerfile.builder.all("WORKDIR") == ["/src"]  # the context copy stands for it
    for step in dockerfile.builder.all("RUN"):
        _run(["/bin/sh", "-c", step], env, context)

    runtime = _stage_env(dockerfile.runtime.env(), venv, {"PATH": "/usr/bin:/bin"})
    (entrypoint,) = dockerfile.runtime.all("ENTRYPOINT")
    command = json.loads(entrypoint)
    assert "kube-notifier 0.1.0" in _run([command[0], "--version"], runtime, tmp_path)
    help_text = _run([*command, "--help"], runtime, tmp_path)
    assert "--config-map" in help_text and "--leader-elect" in help_text
    checked = _run(
        [command[0], "rules", "check", str(REPO / "config.example.yaml")], runtime, tmp_path
    )
    assert "OK" in checked

    site = next((venv / "lib").glob("python3.*/site-packages"))
    assert not (site / "pip").exists(), "the virtualenv must carry no pip into the image"
    # A read-only root filesystem: every module is compiled already, nothing is written.
    modules = list((site / "notifier").rglob("*.py"))
    compiled = list((site / "notifier").rglob("__pycache__/*.pyc"))
    assert modules and len(compiled) >= len(modules)
