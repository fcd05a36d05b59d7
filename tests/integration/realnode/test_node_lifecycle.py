"""A real node starts in seconds and leaves nothing behind: processes, mounts, the network
namespace and its veth, cgroups, and the host sysctls the kubelet changes."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.controlplane import hoststate, incidents, netns
from tests.controlplane.cluster import ControlPlane
from tests.controlplane.node import RealNode
from tests.controlplane.processes import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

START_SECONDS = 30  # measured: about 5 s on the shared 2-core machine


def _running(pid: int) -> bool:
    """Neither gone nor a zombie (a killed shim's parent is init, which reaps when it will)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def _run_pod_on(plane: ControlPlane, node: str) -> None:
    plane.kubectl("create", "namespace", "scratch")
    spec = incidents.pod_spec(incidents.container("serve"), nodeName=node)
    manifest = json.dumps(incidents.pod("server", spec))
    plane.kubectl("apply", "-n", "scratch", "-f", "-", input_text=manifest)

    def running() -> bool:
        body = json.loads(plane.kubectl("get", "pod", "-n", "scratch", "server", "-o", "json"))
        return bool(body.get("status", {}).get("phase") == "Running")

    wait_until(running, 60, "a pod Running on the scratch node")


def test_a_node_starts_in_seconds_and_leaves_nothing_behind(real_plane: ControlPlane) -> None:
    saved = hoststate.read_sysctls()
    overcommit = hoststate.sysctl_path("vm.overcommit_memory")
    overcommit.write_text("0\n")  # the kubelet sets 1
    links = netns.host_links()
    try:
        started = time.monotonic()
        scratch = RealNode(real_plane, name="scratch-node")
        with scratch:
            seconds = time.monotonic() - started
            _run_pod_on(real_plane, scratch.name)
            assert overcommit.read_text().strip() == "1"
            pids = [p.pid for p in (scratch.kubelet, scratch.containerd) if p and p.pid]
            pids += sorted(hoststate.cgroup_pids(scratch.layout.cgroup))
            assert scratch.net.path.exists() and scratch.net.host_link in netns.host_links()
            assert hoststate.mounts_under(scratch.directory)  # the pod's root file system
        print(f"scratch node Ready {seconds:.1f} s after its start began")
        assert seconds < START_SECONDS
        assert not [pid for pid in pids if _running(pid)]
        assert not scratch.net.path.exists()
        assert netns.host_links() == links, "a host link was left"
        assert not any((h / scratch.layout.cgroup).exists() for h in hoststate.hierarchies())
        assert not hoststate.mounts_under(scratch.directory)
        assert not scratch.directory.exists()
        assert overcommit.read_text().strip() == "0"
    finally:
        hoststate.restore_sysctls(saved)
        real_plane.kubectl("delete", "namespace", "scratch", "--wait=false", check=False)
        real_plane.kubectl("delete", "node", "scratch-node", "--wait=false", check=False)
