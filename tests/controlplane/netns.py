"""The real node's own network: a namespace, a veth pair, and the API server brought inside.

The kubelet refuses a loopback node IP, and the API server must reach it for
``pods/log``. So the node lives in a network namespace we create: its end of a
veth pair has ``.2`` of a /30 taken from 198.18.0.0/15 (the benchmarking range,
never the machine's own), the host end ``.1``. Pods get addresses from a /24 in
198.19.0.0/16 on a bridge inside the namespace. Nothing else is added to the host.

The API server listens on 127.0.0.1 only; inside the namespace, 127.0.0.1 is the
namespace's own loopback. ``ApiForwarder`` opens a listener there, on the same port,
and copies each connection to the host's 127.0.0.1: the kubelet's kubeconfig names
``https://127.0.0.1:<port>`` as everyone else's does and the serving cert fits.
"""

from __future__ import annotations

import contextlib
import ctypes
import ipaddress
import json
import os
import socket
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

CLONE_NEWNET = 0x40000000
NETNS_DIR = Path("/run/netns")
NODE_RANGE = ipaddress.IPv4Network("198.18.0.0/16")  # /30s for node links
POD_RANGE = ipaddress.IPv4Network("198.19.0.0/16")  # /24s for pods, inside the namespace


@dataclass(frozen=True)
class NodeNetwork:
    """Names and addresses of one node's namespace; ``slot`` picks them."""

    slot: int

    @property
    def name(self) -> str:
        return f"kn-node-{self.slot}"

    @property
    def host_link(self) -> str:
        return f"kn-h{self.slot}"

    @property
    def path(self) -> Path:
        return NETNS_DIR / self.name

    @property
    def link(self) -> ipaddress.IPv4Network:
        return ipaddress.IPv4Network((int(NODE_RANGE.network_address) + 4 * self.slot, 30))

    @property
    def host_ip(self) -> str:
        return str(self.link.network_address + 1)

    @property
    def node_ip(self) -> str:
        return str(self.link.network_address + 2)

    @property
    def pod_subnet(self) -> str:
        return str(
            ipaddress.IPv4Network((int(POD_RANGE.network_address) + 256 * (self.slot % 256), 24))
        )


def _ip(*args: str, netns: str | None = None) -> str:
    argv = ["ip", *(["-n", netns] if netns else []), *args]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=30)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {done.stderr.strip()}")
    return done.stdout


def host_networks() -> list[ipaddress.IPv4Network]:
    """Every IPv4 network the host's interfaces have an address in."""
    found = []
    for link in json.loads(_ip("-j", "-4", "addr", "show")):
        for info in link.get("addr_info", []):
            found.append(ipaddress.IPv4Interface(f"{info['local']}/{info['prefixlen']}").network)
    return found


def free_network(first: int) -> NodeNetwork:
    """A slot from ``first`` on whose /30 and namespace nothing on the host uses yet."""
    taken = host_networks()
    for offset in range(64):
        net = NodeNetwork((first + offset) % 16384)
        if not net.path.exists() and not any(net.link.overlaps(t) for t in taken):
            return net
    raise RuntimeError("no free 198.18.0.0/16 slot for a node network")


def create(net: NodeNetwork) -> None:
    """The namespace, its loopback up, and the veth pair with both ends addressed."""
    _ip("netns", "add", net.name)
    _ip("link", "set", "lo", "up", netns=net.name)
    _ip("link", "add", net.host_link, "type", "veth", "peer", "name", "eth0", "netns", net.name)
    _ip("addr", "add", f"{net.host_ip}/30", "dev", net.host_link)
    _ip("link", "set", net.host_link, "up")
    _ip("addr", "add", f"{net.node_ip}/30", "dev", "eth0", netns=net.name)
    _ip("link", "set", "eth0", "up", netns=net.name)


def delete(net: NodeNetwork) -> None:
    """The namespace goes, and with it its veth end, bridge and pod links; then the host end."""
    if net.path.exists():
        _ip("netns", "del", net.name)
    with contextlib.suppress(RuntimeError):
        _ip("link", "del", net.host_link)  # gone with its peer already, unless a step failed


def exec_prefix(net: NodeNetwork) -> list[str]:
    """Run a command in the namespace's network only (not ``ip netns exec``: that one also
    remounts /sys, hiding the cgroup mounts the kubelet needs)."""
    return ["nsenter", f"--net={net.path}", "--"]


def _setns(fd: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(fd, CLONE_NEWNET) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))


def listen_inside(net: NodeNetwork, port: int) -> socket.socket:
    """A TCP listener on 127.0.0.1:``port`` of the namespace, made on a thread of its own
    (setns changes only the calling thread; the socket keeps the namespace it was made in)."""
    made: list[socket.socket | BaseException] = []

    def make() -> None:
        own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        target = os.open(net.path, os.O_RDONLY)
        try:
            _setns(target)
            sock = socket.create_server(("127.0.0.1", port))
            made.append(sock)
            _setns(own)
        except BaseException as err:  # handed to the caller
            made.append(err)
        finally:
            os.close(own)
            os.close(target)

    thread = threading.Thread(target=make, name="netns-listen")
    thread.start()
    thread.join()
    if isinstance(made[0], BaseException):
        raise made[0]
    return made[0]


class ApiForwarder:
    """Copies each connection to the namespace's 127.0.0.1:port to the host's 127.0.0.1:port."""

    def __init__(self, net: NodeNetwork, port: int) -> None:
        self.port = port
        self.listener = listen_inside(net, port)
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, name="netns-forward", daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                inside, _ = self.listener.accept()
            except OSError:
                return  # closed
            try:
                outside = socket.create_connection(("127.0.0.1", self.port), timeout=5)
            except OSError:
                inside.close()
                continue
            outside.settimeout(None)
            with self._lock:
                self._open.update((inside, outside))
            for src, dst in ((inside, outside), (outside, inside)):
                threading.Thread(target=self._copy, args=(src, dst), daemon=True).start()

    def _copy(self, src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                dst.sendall(data)
        for sock in (src, dst):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
        self.listener.close()
        with self._lock:
            for sock in self._open:
                with contextlib.suppress(OSError):
                    sock.close()
            self._open.clear()


def host_links() -> set[str]:
    """The names of the host's network interfaces."""
    return {link["ifname"] for link in json.loads(_ip("-j", "link", "show"))}
