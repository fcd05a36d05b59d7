"""A real node against the test control plane: containerd, runc, a bridge CNI and a kubelet.

``RealNode(plane).start()`` brings one node up in a few seconds; ``stop()`` leaves
nothing behind (processes stopped by PID, mounts, the network namespace and its veth,
the node's cgroups, the host sysctls the kubelet changed). Each node writes what it
created to ``record.json`` first, so a later run undoes what an interrupted one left
(``reap_stale``). How it fits together: docs/real-node.md.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tests.controlplane import assets, hoststate, images, netns
from tests.controlplane.cluster import ControlPlane
from tests.controlplane.nodeconfig import (
    CNI_BIN_DIR,
    CNI_CACHE_DIR,
    NodeLayout,
    cni_conflist,
    cni_network,
    containerd_toml,
    kubelet_argv,
    kubelet_config,
)
from tests.controlplane.processes import Process, wait_until

NODES_ROOT = Path(tempfile.gettempdir()) / "kube-notifier-node"
SHIM_SOCKETS = Path("/run/containerd/s")
HOST_DIRS = (SHIM_SOCKETS, SHIM_SOCKETS.parent, CNI_CACHE_DIR, CNI_CACHE_DIR.parent)
HOST_TOOLS = ("containerd", "containerd-shim-runc-v2", "runc", "ctr", "nsenter", "ip", "umount")
NODE_READY_SECONDS = 60
# The controller-manager flags a real node's tests start it with: a node whose kubelet
# stopped is marked Unknown after 12 s rather than 50 s.
CONTROLLER_ARGS = ("--node-monitor-grace-period=12s", "--node-monitor-period=1s")


def _checks() -> list[tuple[bool, str]]:
    missing = [tool for tool in HOST_TOOLS if shutil.which(tool) is None]
    built = shutil.which("go") is not None or any(assets.cache_dir().glob("workload-*"))
    return [
        (os.geteuid() == 0, "a real node needs root (network namespaces, mounts, cgroups)"),
        (not missing, f"missing {', '.join(missing)}: `make node` installs containerd, runc"),
        ((CNI_BIN_DIR / "bridge").exists(), f"no CNI bridge in {CNI_BIN_DIR}: `make node`"),
        (assets.find("kubelet") is not None, "no kubelet: `make assets` builds it"),
        (built, "Go is needed to build the node's images"),
        (bool(hoststate.hierarchies()), "no cgroup hierarchy mounted"),
    ]


def unavailable() -> str | None:
    """Why this machine cannot run a real node, or None when it can."""
    return next((reason for ok, reason in _checks() if not ok), None)


@dataclass(frozen=True)
class NodeRecord:
    """What a node created on the host, written before it is created."""

    owner: int
    slot: int
    cgroup: str
    sysctls: dict[str, str]


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def host_files(directory: Path, net: netns.NodeNetwork) -> list[Path]:
    """What containerd 1.6 and libcni keep for this node's tasks in host directories no
    setting moves: each shim's socket (/run/containerd/s, named by the sha256 of the
    containerd address, namespace and task id; a shim killed by SIGKILL leaves it) and
    each sandbox's cached CNI results (/var/lib/cni/results, by network and sandbox id)."""
    tasks = directory / "containerd-state" / "io.containerd.runtime.v2.task" / "k8s.io"
    address = directory / "containerd.sock"
    found = []
    for task in tasks.iterdir() if tasks.is_dir() else ():
        digest = hashlib.sha256(str(address / "k8s.io" / task.name).encode()).hexdigest()
        found.append(SHIM_SOCKETS / digest)
        found.append(CNI_CACHE_DIR / f"cni-loopback-{task.name}-lo")
        found.append(CNI_CACHE_DIR / f"{cni_network(net)}-{task.name}-eth0")
    return found


def undo(directory: Path, record: NodeRecord) -> None:
    """Take away everything ``record`` says was made, processes first (by their cgroups)."""
    for name in ("kubelet", "containerd"):
        with contextlib.suppress(OSError, ValueError):
            os.kill(int((directory / f"{name}.pid").read_text()), 9)
    hoststate.remove_cgroup(record.cgroup)
    net = netns.NodeNetwork(record.slot)
    for path in host_files(directory, net):
        path.unlink(missing_ok=True)
    for empty in HOST_DIRS:  # made by the first shim or CNI call, when nothing else had
        with contextlib.suppress(OSError):  # (rmdir leaves a directory that holds anything)
            empty.rmdir()
    hoststate.unmount_under(directory)
    netns.delete(net)
    hoststate.restore_sysctls(record.sysctls)
    shutil.rmtree(directory, ignore_errors=True)


def reap_stale() -> None:
    """Undo the nodes of earlier runs whose owning process is gone."""
    if not NODES_ROOT.is_dir():
        return
    for directory in NODES_ROOT.iterdir():
        path = directory / "record.json"
        if not path.exists():
            shutil.rmtree(directory, ignore_errors=True)
            continue
        record = NodeRecord(**json.loads(path.read_text()))
        if not _pid_alive(record.owner):
            undo(directory, record)


class RealNode:
    def __init__(self, plane: ControlPlane, name: str = "real-node") -> None:
        self.plane = plane
        self.name = name
        reap_stale()
        NODES_ROOT.mkdir(exist_ok=True)
        self.net = netns.free_network(os.getpid() % 4096)
        directory = NODES_ROOT / str(self.net.slot)
        directory.mkdir()
        self.layout = NodeLayout(directory, f"kn-node-{self.net.slot}")
        self.record = NodeRecord(os.getpid(), self.net.slot, self.layout.cgroup, {})
        self.containerd: Process | None = None
        self.kubelet: Process | None = None
        self.forwarder: netns.ApiForwarder | None = None

    @property
    def directory(self) -> Path:
        return self.layout.directory

    def start(self) -> RealNode:
        self.record = NodeRecord(
            os.getpid(), self.net.slot, self.layout.cgroup, hoststate.read_sysctls()
        )
        (self.directory / "record.json").write_text(json.dumps(asdict(self.record)))
        netns.create(self.net)
        self.forwarder = netns.ApiForwarder(self.net, self.plane.apiserver_port)
        hoststate.make_cgroup(self.layout.runtime_cgroup)
        self._start_containerd()
        self._import_images()
        self._authorize()
        self.start_kubelet()
        return self

    def _in_netns(self, name: str, argv: list[str]) -> Process:
        proc = Process(name, [*netns.exec_prefix(self.net), *argv], self.directory)
        proc.start()
        return proc

    def _start_containerd(self) -> None:
        self.layout.cni_conf_dir.mkdir(parents=True)
        (self.layout.cni_conf_dir / "10-kn.conflist").write_text(
            cni_conflist(self.net, self.layout)
        )
        self.layout.containerd_config.write_text(containerd_toml(self.layout))
        argv = ["containerd", f"--config={self.layout.containerd_config}", "--log-level=warn"]
        self.containerd = self._in_netns("containerd", argv)
        assert self.containerd.pid is not None
        hoststate.join_cgroup(self.layout.runtime_cgroup, self.containerd.pid)
        wait_until(lambda: self.ctr("version") != "", 30, "containerd's socket", self.containerd)

    def ctr(self, *args: str) -> str:
        argv = ["ctr", f"--address={self.layout.socket}", "--namespace=k8s.io", *args]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)}: {done.stderr.strip()}")
        return done.stdout

    def _import_images(self) -> None:
        for tarball in images.tarballs(assets.cache_dir() / "node-images"):
            self.ctr("images", "import", str(tarball))

    def _authorize(self) -> None:
        """The kubelet's user may do what a node does (no Node authorizer here: RBAC alone)."""
        binding: dict[str, Any] = {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": "kube-notifier-test-nodes"},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": "system:node",
            },
            "subjects": [
                {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:nodes"}
            ],
        }
        self.plane.kubectl_apply(binding)

    def start_kubelet(self) -> None:
        """Start (or start again) the kubelet; returns once the node is Ready."""
        config = kubelet_config(self.layout, self.net, self.plane.pki.ca_cert)
        self.layout.kubelet_config.write_text(json.dumps(config, indent=2))
        kubeconfig = self.plane.kubeconfig_for(f"system:node:{self.name}", ("system:nodes",))
        argv = kubelet_argv(assets.require("kubelet"), self.layout, self.net, kubeconfig, self.name)
        self.kubelet = self._in_netns("kubelet", argv)
        wait_until(self.ready, NODE_READY_SECONDS, f"node {self.name} Ready", self.kubelet)

    def stop_kubelet(self) -> None:
        """The node is lost: its kubelet stops (its containers keep running)."""
        if self.kubelet:
            self.kubelet.stop()
            self.kubelet = None

    def ready(self) -> bool:
        node = json.loads(self.plane.kubectl("get", "node", self.name, "-o", "json"))
        conditions = node.get("status", {}).get("conditions", [])
        return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)

    def stop(self) -> None:
        self.stop_kubelet()
        if self.containerd:
            self.containerd.stop()
            self.containerd = None
        if self.forwarder:
            self.forwarder.close()
            self.forwarder = None
        undo(self.directory, self.record)

    def __enter__(self) -> RealNode:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()
