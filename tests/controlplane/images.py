"""The real node's container images: one static Go binary of ours, packed without docker.

``workload/main.go`` is every container the real-node tests run (modes ``pause``,
``serve``, ``crash``, ``ok``, ``oom``, ``fill``, ``fill-clean``). It is built once into the
assets cache under a name that carries its source's hash, then packed as docker-archive
tarballs (a ``manifest.json``, an image config and one layer, written here with
``tarfile``) that ``ctr -n k8s.io images import`` takes. The pause image is the same binary with the
``pause`` mode as its entrypoint, named as containerd's ``sandbox_image``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from tests.controlplane import assets

SOURCE_DIR = Path(__file__).parent / "workload"
REGISTRY = "kube-notifier.test"  # .test never resolves: a name here that we did not import
WORKLOAD_IMAGE = f"{REGISTRY}/workload:1"
PAUSE_IMAGE = f"{REGISTRY}/pause:1"
MISSING_IMAGE = f"{REGISTRY}/missing:1"  # a real ErrImagePull, with no network reached


@dataclass(frozen=True)
class Image:
    ref: str
    entrypoint: tuple[str, ...]


IMAGES = (Image(WORKLOAD_IMAGE, ("/workload",)), Image(PAUSE_IMAGE, ("/workload", "pause")))


def _source_hash() -> str:
    digest = hashlib.sha256()
    for path in sorted(SOURCE_DIR.iterdir()):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def binary() -> Path:
    """The workload binary, built from ``workload/`` when its source changed."""
    path = assets.cache_dir() / f"workload-{_source_hash()}"
    if not path.exists():
        env = {**os.environ, "CGO_ENABLED": "0", "GOFLAGS": "-mod=mod"}
        partial = path.with_suffix(".partial")
        subprocess.run(
            ["go", "build", "-trimpath", "-ldflags=-s -w", "-o", str(partial), "."],
            cwd=SOURCE_DIR,
            env=env,
            check=True,
            capture_output=True,
        )
        partial.rename(path)
    return path


def _tar_member(tar: tarfile.TarFile, name: str, data: bytes, mode: int = 0o644) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = len(data), mode, 0
    tar.addfile(info, io.BytesIO(data))


def _layer(program: bytes) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        _tar_member(tar, "workload", program, 0o755)
    return out.getvalue()


def _config(image: Image, layer_digest: str) -> bytes:
    config = {
        "architecture": "amd64",
        "os": "linux",
        "config": {"Entrypoint": list(image.entrypoint), "WorkingDir": "/"},
        "rootfs": {"type": "layers", "diff_ids": [layer_digest]},
    }
    return json.dumps(config, sort_keys=True).encode()


def archive(image: Image, program: bytes) -> bytes:
    """A docker-archive tarball of ``image``: one layer holding ``/workload``."""
    layer = _layer(program)
    layer_digest = "sha256:" + hashlib.sha256(layer).hexdigest()
    config = _config(image, layer_digest)
    config_name = hashlib.sha256(config).hexdigest() + ".json"
    manifest = [{"Config": config_name, "RepoTags": [image.ref], "Layers": ["layer.tar"]}]
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        _tar_member(tar, "layer.tar", layer)
        _tar_member(tar, config_name, config)
        _tar_member(tar, "manifest.json", json.dumps(manifest).encode())
    return out.getvalue()


def tarballs(directory: Path) -> list[Path]:
    """Each image's tarball in ``directory`` (written when missing)."""
    program = binary()
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for image in IMAGES:
        name = image.ref.rsplit("/", 1)[-1].replace(":", "-")
        path = directory / f"{name}-{program.name}.tar"
        if not path.exists():
            path.write_bytes(archive(image, program.read_bytes()))
        paths.append(path)
    return paths
