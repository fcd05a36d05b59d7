"""What a real node changes on the host, read before and put back after.

- sysctls: the kubelet sets ``vm.overcommit_memory``, ``vm.panic_on_oom``,
  ``kernel.panic``, ``kernel.panic_on_oops`` and the root key limits; the CNI bridge
  plugin sets ``net.ipv4.ip_forward`` (in the node's namespace, read here anyway);
- cgroups: the node's own subtree (``/<name>`` in every hierarchy): the kubelet's
  ``cgroupRoot`` and containerd's cgroup, which its shims inherit;
- mounts: everything mounted under the node's directory (container root filesystems,
  volumes, the pod network namespaces' pins).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

SYSCTLS = (
    "vm.overcommit_memory",
    "vm.panic_on_oom",
    "kernel.panic",
    "kernel.panic_on_oops",
    "kernel.keys.root_maxkeys",
    "kernel.keys.root_maxbytes",
    "net.ipv4.ip_forward",
)
CGROUP_ROOT = Path("/sys/fs/cgroup")


def sysctl_path(name: str) -> Path:
    return Path("/proc/sys") / name.replace(".", "/")


def read_sysctls() -> dict[str, str]:
    """The current value of each of ``SYSCTLS`` the kernel has."""
    return {
        name: sysctl_path(name).read_text().strip()
        for name in SYSCTLS
        if sysctl_path(name).exists()
    }


def restore_sysctls(saved: dict[str, str]) -> list[str]:
    """Write back each changed value; the names that differed."""
    changed = [name for name, value in read_sysctls().items() if saved.get(name, value) != value]
    for name in changed:
        sysctl_path(name).write_text(saved[name] + "\n")
    return changed


def hierarchies() -> list[Path]:
    """Each mounted cgroup hierarchy (v1 controllers, the named systemd one, a v2 unified)."""
    mounts = Path("/proc/self/mounts").read_text().splitlines()
    found = []
    for line in mounts:
        _, point, fstype, *_ = line.split()
        if fstype in ("cgroup", "cgroup2") and point.startswith(str(CGROUP_ROOT)):
            found.append(Path(point))
    return found


def _copy_cpuset(directory: Path) -> None:
    for name in ("cpuset.cpus", "cpuset.mems"):
        own = directory / name
        if own.exists() and not own.read_text().strip():
            own.write_text((directory.parent / name).read_text())


def make_cgroup(relative: str) -> None:
    """``/<relative>`` in every hierarchy (cpuset values copied from the parent)."""
    for hierarchy in hierarchies():
        path = hierarchy
        for part in Path(relative).parts:
            path = path / part
            path.mkdir(exist_ok=True)
            _copy_cpuset(path)


def join_cgroup(relative: str, pid: int) -> None:
    for hierarchy in hierarchies():
        procs = hierarchy / relative / "cgroup.procs"
        with contextlib.suppress(OSError):  # a hierarchy that takes no processes (v2 inner)
            procs.write_text(f"{pid}\n")


def _subtree(relative: str) -> list[Path]:
    """Every cgroup directory under ``/<relative>``, deepest first."""
    found: list[Path] = []
    for hierarchy in hierarchies():
        top = hierarchy / relative
        if top.is_dir():
            found += [Path(d) for d, _, _ in os.walk(top)]
    return sorted(found, key=lambda p: len(p.parts), reverse=True)


def cgroup_pids(relative: str) -> set[int]:
    pids: set[int] = set()
    for directory in _subtree(relative):
        with contextlib.suppress(OSError):
            pids.update(int(p) for p in (directory / "cgroup.procs").read_text().split())
    return pids


def remove_cgroup(relative: str, timeout: float = 20) -> None:
    """SIGKILL each process left in the subtree (by PID), then remove its directories."""
    deadline = time.monotonic() + timeout
    while pids := cgroup_pids(relative):
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if time.monotonic() > deadline:
            raise RuntimeError(f"processes {sorted(pids)} stay in cgroup /{relative}")
        time.sleep(0.1)
    for directory in _subtree(relative):
        for _ in range(50):
            try:
                directory.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:  # busy for a moment after its last process died
                time.sleep(0.1)


def _unescape(field: str) -> str:
    return field.encode().decode("unicode_escape")


def mounts_under(directory: Path) -> list[str]:
    """Mount points at or under ``directory``, deepest (last mounted) first."""
    prefix = str(directory.resolve())
    points = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        point = _unescape(line.split()[4])
        if point == prefix or point.startswith(prefix + "/"):
            points.append(point)
    return list(reversed(points))


def unmount_under(directory: Path) -> None:
    for point in mounts_under(directory):
        subprocess.run(["umount", "--lazy", point], capture_output=True, check=False)
