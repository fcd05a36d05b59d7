"""kubewatch as a third subject: built from its source repository, configured for the same churn.

kubewatch (github.com/robusta-dev/kubewatch, Go module path
``github.com/bitnami-labs/kubewatch``) is not served by the Go module
proxy, so the bench builds it from a git repository of its source: the
newest release tag (``vX.Y.Z``) unless one is named, ``git archive`` into
a temporary directory, ``go build`` there (its dependencies come from the
module proxy), the binary cached as
``~/.cache/kube-notifier/kubewatch/<tag>/kubewatch``. Nothing of it is
kept in this repository. Where it comes from (``resolve``):

- ``--kubewatch-bin FILE`` or ``KN_BENCH_KUBEWATCH_BIN``: a built binary;
- ``--kubewatch-src DIR`` or ``KN_BENCH_KUBEWATCH_SRC``: the git repository
  (bare or not), with ``--kubewatch-tag`` / ``KN_BENCH_KUBEWATCH_TAG``;
- neither: kubewatch is skipped, with a line saying so; so is a build
  that fails. The bench never fails for kubewatch.

It runs as shipped, configured by a ``.kubewatch.yaml`` in its own
directory (``KW_CONFIG``): Pods, Deployments and Services (what the
bench's kube-notifier watches), all namespaces, the webhook handler to the
receiver. It posts once per create (of objects newer than its start),
update and delete of anything watched; it cannot be told to post only on
label or status changes, so it posts more than the others for the
background churn (not scored). Its metrics server listens on 127.0.0.1 at
a free port (its default is every interface, port 2112). ``KW_*``
variables of the caller's environment, which add resources or handlers,
are not passed on; ``LOG_LEVEL`` is left at kubewatch's default (info),
which logs two lines per event, because its only sign of being ready is a
log line at that level.

Ready: each of its controllers (one per kind) logs ``Kubewatch controller
synced and ready`` once its informer's initial list is in the cache; it is
ready when the Pod, Deployment and Service controllers have all said so.
Its queue still holds an event per cached object then (each checked
against its start time, none posted): the bench's "settled" time covers it.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench.e2e.subjects import Subject
from tests.controlplane.processes import free_port

SRC_ENV = "KN_BENCH_KUBEWATCH_SRC"
BIN_ENV = "KN_BENCH_KUBEWATCH_BIN"
TAG_ENV = "KN_BENCH_KUBEWATCH_TAG"
KINDS = ("Pod", "Deployment", "Service")  # what the bench's kube-notifier config watches
READY_LINE = re.compile(r'msg="Kubewatch controller synced and ready" pkg=kubewatch-(\w+)')
RELEASE_TAG = re.compile(r"^v(\d+)\.(\d+)\.(\d+)$")
BUILD_TIMEOUT = 20 * 60.0


def config_yaml(webhook: str) -> str:
    """kubewatch's ``.kubewatch.yaml`` for the bench (keys: its config structs' field names,
    lower case, as its YAML decoder reads them)."""
    return (
        "# kubewatch's config for the end-to-end bench (bench/e2e/kubewatch.py)\n"
        "handler:\n"
        "  webhook:\n"
        f'    url: "{webhook}"\n'
        "resource:\n"
        "  pod: true\n"
        "  deployment: true\n"
        "  services: true\n"
        'namespace: ""\n'
    )


def synced_kinds(log: str) -> set[str]:
    """The kinds whose controller has logged that its informer synced."""
    return set(READY_LINE.findall(log))


def newest_release(tags: list[str]) -> str | None:
    """The highest ``vX.Y.Z`` tag (pre-releases and other tags ignored), or None."""
    releases = [(tuple(int(n) for n in m.groups()), t) for t in tags if (m := RELEASE_TAG.match(t))]
    return max(releases)[1] if releases else None


def cache_root() -> Path:
    return Path.home() / ".cache" / "kube-notifier" / "kubewatch"


@dataclass(frozen=True)
class Found:
    """A kubewatch binary to run (``binary``), or why there is none (``skipped``)."""

    binary: Path | None = None
    skipped: str = ""
    about: str = ""  # where it came from: the file, or the tag and the source


def resolve(binary: str | None, source: str | None, tag: str | None) -> Found:
    """The binary given, else one built (or cached) from ``source``, else a reason to skip."""
    binary = binary or os.environ.get(BIN_ENV)
    source = source or os.environ.get(SRC_ENV)
    tag = tag or os.environ.get(TAG_ENV)
    if binary:
        path = Path(binary)
        if not os.access(path, os.X_OK):
            return Found(skipped=f"{path} is not an executable file")
        return Found(path, about=f"{path} (given)")
    if not source:
        return Found(
            skipped=f"no source: pass --kubewatch-src DIR (a git repository of kubewatch) "
            f"or set {SRC_ENV}, or --kubewatch-bin FILE / {BIN_ENV}"
        )
    try:
        return build(Path(source), tag)
    except (OSError, subprocess.SubprocessError, tarfile.TarError, ValueError) as err:
        return Found(skipped=f"could not build from {source}: {_tail(err)}")


def build(source: Path, tag: str | None = None) -> Found:
    """``tag`` (default: the newest release) of the repository at ``source``, built once."""
    if tag is None:
        tags = _git(source, "tag", "--list").decode().split()
        tag = newest_release(tags)
        if tag is None:
            raise ValueError(f"no release tag (vX.Y.Z) in {source}")
    out = cache_root() / tag / "kubewatch"
    about = f"{tag} built from {source}: {out}"
    if out.exists():
        return Found(out, about=about)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kubewatch-src-") as work:
        archive = _git(source, "archive", "--format=tar", tag)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(work, filter="data")
        built = Path(work) / "kubewatch"
        subprocess.run(
            ["go", "build", "-trimpath", "-o", str(built), "."],
            cwd=work,
            env={**os.environ, "CGO_ENABLED": "0"},
            check=True,
            capture_output=True,
            timeout=BUILD_TIMEOUT,
        )
        shutil.move(built, out.with_suffix(".part"))
    os.replace(out.with_suffix(".part"), out)  # never a half-written binary in the cache
    return Found(out, about=about)


def _git(source: Path, *args: str) -> bytes:
    done = subprocess.run(
        ["git", "-C", str(source), *args], check=True, capture_output=True, timeout=120
    )
    return done.stdout


def _tail(err: Exception) -> str:
    if isinstance(err, subprocess.CalledProcessError):
        output = (err.stderr or b"").decode(errors="replace").strip().splitlines()
        return f"{' '.join(map(str, err.cmd))} exited {err.returncode}: " + " | ".join(output[-5:])
    return str(err)


class Kubewatch(Subject):
    name = "kubewatch"

    def __init__(self, work_dir: Path, kubeconfig: Path, webhook: str, binary: Path) -> None:
        super().__init__(work_dir, kubeconfig, webhook)
        self.binary = binary
        self.config_dir = work_dir / "kubewatch"
        self.config_dir.mkdir(exist_ok=True)
        (self.config_dir / ".kubewatch.yaml").write_text(config_yaml(webhook))
        self._log_offset = 0
        self._synced: set[str] = set()

    def argv(self) -> list[str]:
        return [str(self.binary)]

    def env(self) -> dict[str, str]:
        kept = {k: v for k, v in os.environ.items() if not k.startswith("KW_")}
        for name in ("LOG_LEVEL", "LOG_FORMATTER", "KUBERNETES_SERVICE_HOST"):
            kept.pop(name, None)  # its defaults; and never the in-cluster config
        return kept | {
            "KW_CONFIG": str(self.config_dir),
            "KUBECONFIG": str(self.kubeconfig),
            "LISTEN_ADDRESS": f"127.0.0.1:{free_port()}",
        }

    def start(self) -> None:
        self._log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        self._synced = set()
        super().start()

    def is_ready(self) -> bool:
        """Polled: reads what it logged since the last poll (the log is its stderr)."""
        with self.log_path.open("rb") as log:
            log.seek(self._log_offset)
            text = log.read()
        complete = text.rfind(b"\n") + 1  # a line still being written waits for the next poll
        self._log_offset += complete
        self._synced |= synced_kinds(text[:complete].decode(errors="replace"))
        return self._synced >= set(KINDS)
