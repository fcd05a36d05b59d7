"""A laptop gets the versions the image gets: the README's install commands and the
Dockerfile's both install with constraints.txt, which pins every runtime dependency.
The files a laptop run leaves beside the state database are ignored by git."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.unit.test_dockerfile import load

ROOT = Path(__file__).resolve().parents[2]


def _laptop_commands() -> list[str]:
    section = (ROOT / "README.md").read_text().split("## Start on a laptop", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    commands = []
    for line in block.splitlines():
        command, _, alternative = line.partition("# or:")
        commands += [part.strip() for part in (command, alternative) if "install" in part]
    return commands


def _pinned() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        name, _, version = line.partition("==")
        pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    return pins


def test_the_readme_installs_with_the_images_constraints() -> None:
    commands = _laptop_commands()
    assert len(commands) == 2, commands  # pipx, and a plain virtualenv
    for command in commands:
        assert re.search(r"(-c |--constraint=)(\$PWD/)?constraints\.txt\b", command), command
    [install] = [run for run in load().builder.all("RUN") if "install" in run]
    assert "--constraint constraints.txt" in install
    assert any("constraints.txt" in copy for copy in load().builder.all("COPY"))


def test_constraints_pin_every_runtime_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = [re.split(r"[\s\[<>=!~;]", spec, maxsplit=1)[0] for spec in project["dependencies"]]
    pins = _pinned()
    missing = [name for name in names if re.sub(r"[-_.]+", "-", name).lower() not in pins]
    assert missing == [], "add to constraints.txt"


@pytest.mark.parametrize("name", ["kube-notifier-state.db", "kube-notifier-state.db.lock"])
def test_the_state_files_of_a_laptop_run_are_ignored(name: str) -> None:
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    done = subprocess.run(
        [git, "check-ignore", "--quiet", "--no-index", name],
        cwd=ROOT, capture_output=True, timeout=30, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"{name} is not ignored"
