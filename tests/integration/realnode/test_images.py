"""The node's image tarballs, as ``ctr images import`` reads them (no cluster needed)."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile

from tests.controlplane.images import PAUSE_IMAGE, Image, archive
from tests.controlplane.netns import NodeNetwork


def _read(tarball: tarfile.TarFile, name: str) -> bytes:
    member = tarball.extractfile(name)
    assert member is not None, name
    return member.read()


def test_an_archive_holds_one_layer_whose_digest_its_config_names() -> None:
    data = archive(Image(PAUSE_IMAGE, ("/w", "pause")), b"x")
    with tarfile.open(fileobj=io.BytesIO(data)) as tarball:
        (manifest,) = json.loads(_read(tarball, "manifest.json"))
        layer = _read(tarball, manifest["Layers"][0])
        config = json.loads(_read(tarball, manifest["Config"]))
    assert manifest["RepoTags"] == [PAUSE_IMAGE]
    assert config["rootfs"]["diff_ids"] == ["sha256:" + hashlib.sha256(layer).hexdigest()]
    assert config["config"]["Entrypoint"] == ["/w", "pause"]
    with tarfile.open(fileobj=io.BytesIO(layer)) as files:
        program = files.getmember("workload")
    assert program.mode == 0o755 and program.size == 1


def test_node_addresses_stay_in_the_benchmarking_range() -> None:
    for slot in (0, 1, 4095, 16383):
        net = NodeNetwork(slot)
        assert net.host_ip.startswith("198.18.") and net.node_ip.startswith("198.18.")
        assert net.pod_subnet.startswith("198.19.") and net.link.prefixlen == 30
    assert NodeNetwork(1).link.network_address == NodeNetwork(0).link.broadcast_address + 1
