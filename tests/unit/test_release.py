"""A release that works: the published chart pulls the published image, nothing is
published before CI passes on the tag, the notes come from CHANGELOG.md, and the
license the metadata names is in the repository.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from scripts.release_notes import MissingNotesError, notes, versions

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
CHART = ROOT / "helm" / "kube-notifier"
# Jobs that write somewhere others read: a registry, PyPI, the repository's releases.
PUBLISHING_PERMISSIONS = {"packages", "id-token", "attestations", "contents"}


def _workflow(name: str) -> dict[Any, Any]:
    data: dict[Any, Any] = yaml.safe_load((WORKFLOWS / name).read_text())
    return data


def _needs(job: dict[str, Any]) -> list[str]:
    needs = job.get("needs", [])
    return [needs] if isinstance(needs, str) else list(needs)


def _upstream(jobs: dict[str, Any], name: str) -> set[str]:
    """Every job ``name`` waits for, directly or through others."""
    found: set[str] = set()
    pending = _needs(jobs[name])
    while pending:
        job = pending.pop()
        if job not in found:
            found.add(job)
            pending += _needs(jobs[job])
    return found


def _runs(job: dict[str, Any]) -> str:
    return "\n".join(step.get("run", "") for step in job["steps"])


def test_the_charts_default_image_is_the_one_the_release_publishes() -> None:
    release = _workflow("release.yml")
    image = yaml.safe_load((CHART / "values.yaml").read_text())["image"]
    assert f"{image['registry']}/{image['repository']}" == release["env"]["IMAGE"]
    assert image["tag"] == "" and image["digest"] == ""  # the tag is the appVersion
    steps = {step.get("id"): step for step in release["jobs"]["image"]["steps"]}
    assert steps["meta"]["with"]["images"] == "${{ env.IMAGE }}"
    assert "type=semver,pattern={{version}}" in steps["meta"]["with"]["tags"]
    # the chart is packaged with appVersion = the tag's version, which the image carries
    assert '--app-version "${VERSION}"' in _runs(release["jobs"]["chart"])
    assert 'grep -qx "appVersion: \\"${version}\\""' in _runs(release["jobs"]["check"])


def test_the_release_stops_before_publishing_where_the_image_could_not_be_pushed() -> None:
    check = _runs(_workflow("release.yml")["jobs"]["check"])
    assert '"${IMAGE}" != "ghcr.io/${OWNER,,}/kube-notifier"' in check


def test_nothing_is_published_before_ci_passes_on_the_tag() -> None:
    release = _workflow("release.yml")
    jobs = release["jobs"]
    assert jobs["test"] == {"uses": "./.github/workflows/ci.yml"}
    assert "workflow_call" in _workflow("ci.yml")[True]  # YAML 1.1 reads `on` as true
    publishing = [
        name
        for name, job in jobs.items()
        if "environment" in job
        or any(job.get("permissions", {}).get(p) == "write" for p in PUBLISHING_PERMISSIONS)
    ]
    assert {"image", "chart", "pypi", "github-release"} <= set(publishing)
    for name in publishing:
        assert "test" in _upstream(jobs, name), f"{name} publishes without waiting for CI"


def test_the_release_notes_are_the_versions_section_of_the_changelog() -> None:
    jobs = _workflow("release.yml")["jobs"]
    assert 'python3 -m scripts.release_notes "${version}"' in _runs(jobs["check"])
    publish = _runs(jobs["github-release"])
    assert 'python3 -m scripts.release_notes "${VERSION}" > notes.md' in publish
    assert "--notes-file notes.md" in publish
    assert jobs["github-release"]["permissions"] == {"contents": "write"}


CHANGELOG = """\
# Changelog

## [Unreleased]

## [1.1.0] - 2026-12-01

### Fixed

- The page says when it is stale.

## [1.0.0] - 2026-11-30

### Added

- Everything.

[1.1.0]: https://example.invalid/compare/v1.0.0...v1.1.0
"""


def test_notes_are_one_section_without_its_heading_or_link_references() -> None:
    assert notes(CHANGELOG, "1.1.0") == "### Fixed\n\n- The page says when it is stale.\n"
    assert notes(CHANGELOG, "1.0.0") == "### Added\n\n- Everything.\n"
    assert versions(CHANGELOG) == ["Unreleased", "1.1.0", "1.0.0"]


@pytest.mark.parametrize(
    ("version", "error"),
    [("1.2.0", "no section '## [1.2.0]"), ("Unreleased", "[Unreleased] is empty"), ("1.1", "no")],
)
def test_a_version_without_notes_stops_the_release(version: str, error: str) -> None:
    with pytest.raises(MissingNotesError, match=re.escape(error)):
        notes(CHANGELOG, version)


def test_the_changelog_keeps_an_unreleased_section_and_dated_versions() -> None:
    text = (ROOT / "CHANGELOG.md").read_text()
    found = versions(text)
    assert found[0] == "Unreleased" and "### Added" in notes(text, "Unreleased")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert len(headings) == len(found), "every section heading is '## [X.Y.Z] - YYYY-MM-DD'"


def test_the_license_the_metadata_names_is_in_the_repository() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    assert project["license"] == chart["annotations"]["artifacthub.io/license"] == "Apache-2.0"
    assert 'org.opencontainers.image.licenses="Apache-2.0"' in (ROOT / "Dockerfile").read_text()
    text = (ROOT / "LICENSE").read_text()
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "END OF TERMS AND CONDITIONS" in text
