"""The files a real node runs from: containerd's config, the CNI network, the kubelet's config.

Every path lives under the node's directory, so nothing lands in /etc, /var/lib or
/var/log. The facts behind each setting are issue #37's (how a kubelet first ran here).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.controlplane.images import PAUSE_IMAGE
from tests.controlplane.netns import NodeNetwork

CNI_BIN_DIR = Path("/usr/lib/cni")  # Debian's containernetworking-plugins
# libcni caches each attachment's result here, named <network>-<container>-<interface>;
# containerd 1.6 cannot move it: the node removes its network's files when it stops.
CNI_CACHE_DIR = Path("/var/lib/cni/results")
NODE_LEASE_SECONDS = 8  # renewed every 2 s: the controller-manager's grace period can be short
NODE_STATUS_SECONDS = 4


@dataclass(frozen=True)
class NodeLayout:
    """Where one node keeps everything; ``cgroup`` is its subtree in every hierarchy."""

    directory: Path
    cgroup: str

    @property
    def socket(self) -> Path:
        return self.directory / "containerd.sock"

    @property
    def containerd_config(self) -> Path:
        return self.directory / "containerd.toml"

    @property
    def kubelet_config(self) -> Path:
        return self.directory / "kubelet.yaml"

    @property
    def kubelet_root(self) -> Path:
        return self.directory / "kubelet"

    @property
    def pod_logs(self) -> Path:
        return self.directory / "pod-logs"

    @property
    def cni_conf_dir(self) -> Path:
        return self.directory / "cni" / "net.d"

    @property
    def runtime_cgroup(self) -> str:
        return f"{self.cgroup}/runtime"


def containerd_toml(layout: NodeLayout) -> str:
    d = layout.directory
    cri = 'plugins."io.containerd.grpc.v1.cri"'
    return f"""version = 2
root = "{d / "containerd-root"}"
state = "{d / "containerd-state"}"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = "{layout.socket}"

[ttrpc]
  address = "{layout.socket}.ttrpc"

[plugins."io.containerd.internal.v1.opt"]
  path = "{d / "containerd-opt"}"

[{cri}]
  sandbox_image = "{PAUSE_IMAGE}"
  restrict_oom_score_adj = true
  disable_apparmor = true
  enable_selinux = false
  netns_mounts_under_state_dir = true
  stream_server_address = "127.0.0.1"

[{cri}.containerd]
  snapshotter = "overlayfs"
  default_runtime_name = "runc"

[{cri}.containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"

[{cri}.containerd.runtimes.runc.options]
  SystemdCgroup = false
  Root = "{d / "runc"}"

[{cri}.cni]
  bin_dir = "{CNI_BIN_DIR}"
  conf_dir = "{layout.cni_conf_dir}"
"""


def cni_conflist(net: NodeNetwork, layout: NodeLayout) -> str:
    """A bridge inside the node's namespace; host-local addresses kept in the node's dir."""
    bridge = {
        "type": "bridge",
        "bridge": "kn0",
        "isGateway": True,
        "ipMasq": False,
        "ipam": {
            "type": "host-local",
            "ranges": [[{"subnet": net.pod_subnet}]],
            "dataDir": str(layout.directory / "cni" / "ipam"),
        },
    }
    conflist = {"cniVersion": "0.4.0", "name": cni_network(net), "plugins": [bridge]}
    return json.dumps(conflist, indent=2)


def cni_network(net: NodeNetwork) -> str:
    return f"kn-node-{net.slot}"


def kubelet_config(layout: NodeLayout, net: NodeNetwork, ca_file: Path) -> dict[str, Any]:
    tiny = {"memory.available": "1Mi", "nodefs.available": "1%", "imagefs.available": "1%"}
    endpoint = f"unix://{layout.socket}"
    return {
        "apiVersion": "kubelet.config.k8s.io/v1beta1",
        "kind": "KubeletConfiguration",
        "failCgroupV1": False,  # the machine mounts cgroup v1
        "cgroupDriver": "cgroupfs",
        "cgroupRoot": f"/{layout.cgroup}",
        "address": net.node_ip,
        "port": 10250,
        "readOnlyPort": 0,
        "healthzBindAddress": "127.0.0.1",
        "authentication": {
            "anonymous": {"enabled": False},
            "webhook": {"enabled": False},
            "x509": {"clientCAFile": str(ca_file)},
        },
        "authorization": {"mode": "AlwaysAllow"},
        "containerRuntimeEndpoint": endpoint,
        "imageServiceEndpoint": endpoint,
        "podLogsDir": str(layout.pod_logs),
        "volumePluginDir": str(layout.directory / "volume-plugins"),
        "failSwapOn": False,
        "nodeLeaseDurationSeconds": NODE_LEASE_SECONDS,
        "nodeStatusUpdateFrequency": f"{NODE_STATUS_SECONDS}s",
        "nodeStatusReportFrequency": f"{NODE_STATUS_SECONDS}s",
        "syncFrequency": "10s",
        # The machine's disk and memory are shared: this node must never evict or collect
        # the imported images on its own account.
        "evictionHard": tiny,
        "imageGCHighThresholdPercent": 100,
        "imageGCLowThresholdPercent": 99,
        # An emptyDir's usage is measured (du) this often, so a pod past its sizeLimit is
        # evicted at the eviction manager's next pass (every 10 s) instead of minutes on.
        "volumeStatsAggPeriod": "2s",
        "serializeImagePulls": False,
        "shutdownGracePeriod": "0s",
        "logging": {"verbosity": 1},
    }


def kubelet_argv(
    binary: Path, layout: NodeLayout, net: NodeNetwork, kubeconfig: Path, name: str
) -> list[str]:
    return [
        str(binary),
        f"--config={layout.kubelet_config}",
        f"--kubeconfig={kubeconfig}",
        f"--root-dir={layout.kubelet_root}",
        f"--cert-dir={layout.directory / 'kubelet-pki'}",
        f"--node-ip={net.node_ip}",
        f"--hostname-override={name}",
    ]
