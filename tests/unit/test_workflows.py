"""The GitHub workflows: CI runs `make test`; a tag releases the image, chart and package.

`make lint` runs actionlint on them (built from its Go module into the asset cache);
this test runs it too when it is there, and checks what each workflow promises.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.controlplane import assets

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"


def _load(name: str) -> dict[Any, Any]:
    data: dict[Any, Any] = yaml.safe_load((WORKFLOWS / name).read_text())
    return data


def _steps(workflow: dict[Any, Any], job: str) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = workflow["jobs"][job]["steps"]
    return steps


def test_actionlint_passes_on_both_workflows() -> None:
    actionlint = assets.find("actionlint")
    if actionlint is None:
        pytest.skip("actionlint not built: make actionlint")
    shellcheck = Path(sys.executable).parent / "shellcheck"
    done = subprocess.run(
        [str(actionlint), "-no-color", f"-shellcheck={shellcheck}",
         str(WORKFLOWS / "ci.yml"), str(WORKFLOWS / "release.yml")],
        capture_output=True, text=True, timeout=60, check=False, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_ci_runs_make_test_on_pushes_and_pull_requests() -> None:
    ci = _load("ci.yml")
    # YAML 1.1 reads the key `on` as true; workflow_call: the release runs it first
    assert set(ci[True]) == {"push", "pull_request", "workflow_call"}
    assert [step.get("run") for step in _steps(ci, "test")][-1] == "make test"


def test_a_tag_releases_the_image_for_two_platforms_with_provenance() -> None:
    release = _load("release.yml")
    assert release[True] == {"push": {"tags": ["v*.*.*"]}}
    build = next(s for s in _steps(release, "image") if s.get("id") == "build")
    assert build["with"]["platforms"] == "linux/amd64,linux/arm64"
    assert build["with"]["push"] is True and build["with"]["provenance"] == "mode=max"
    assert any("attest-build-provenance" in s.get("uses", "") for s in _steps(release, "image"))


def test_a_tag_pushes_the_chart_as_oci_and_publishes_to_pypi_without_a_token() -> None:
    release = _load("release.yml")
    chart = "\n".join(s.get("run", "") for s in _steps(release, "chart"))
    assert "helm push" in chart and "oci://ghcr.io/" in chart
    pypi = release["jobs"]["pypi"]
    assert pypi["permissions"] == {"id-token": "write"}
    [publish] = [s for s in pypi["steps"] if "gh-action-pypi-publish" in s.get("uses", "")]
    assert "password" not in publish.get("with", {})
