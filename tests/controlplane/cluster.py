"""etcd + kube-apiserver (tier 1), plus controller-manager, scheduler and kwok (tier 2).

Everything listens on 127.0.0.1 on free ports, lives in one run directory,
and is stopped by PID. A server whose port was taken before it bound it starts
again on another (``processes.start_listening``): etcd's and the API server's
ports are chosen as they start, the API server's kept when it restarts.
``ControlPlane`` is what the pytest fixtures, the demo and the benchmarks share.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import shutil
import ssl
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

import yaml

from tests.controlplane import assets
from tests.controlplane.certs import Pki, client_cert, make_pki
from tests.controlplane.processes import (
    RUNS_ROOT_NAME,
    Process,
    Started,
    free_port,
    reap_stale,
    start_listening,
    wait_until,
)

STAGES_DIR = Path(__file__).parent / "stages"
FAKE_NODE_ANNOTATION = "kwok.x-k8s.io/node"
NODE_LEASE_SECONDS = 40


class ControlPlane:
    def __init__(self, run_dir: Path | None = None, *, watch_cache: bool = True) -> None:
        root = Path(tempfile.gettempdir()) / RUNS_ROOT_NAME
        reap_stale(root)
        root.mkdir(exist_ok=True)
        self.run_dir = run_dir or Path(tempfile.mkdtemp(prefix="run-", dir=root))
        (self.run_dir / "owner.pid").write_text(str(os.getpid()))
        self.watch_cache = watch_cache
        self.pki: Pki = make_pki(self.run_dir / "pki")
        self.etcd_port = self.apiserver_port = 0  # chosen as each starts
        self.kubeconfig = self.run_dir / "kubeconfig"
        self.etcd: Process | None = None
        self.apiserver: Process | None = None
        self.extras: list[Process] = []

    # -- tier 1 ----------------------------------------------------------
    @property
    def server(self) -> str:
        return f"https://127.0.0.1:{self.apiserver_port}"

    @property
    def etcd_url(self) -> str:
        return f"http://127.0.0.1:{self.etcd_port}"

    def start(self) -> ControlPlane:
        self._start_etcd()
        self.apiserver = start_listening(self._apiserver_on_a_new_port)
        self._wait_apiserver_ready()
        self._write_kubeconfig()
        return self

    def _start_etcd(self) -> None:
        self.etcd = start_listening(self._etcd_on_new_ports)
        wait_until(
            lambda: self._etcd_call("/health", None)["health"] == "true",
            30,
            "etcd health",
            self.etcd,
        )

    def _etcd_on_new_ports(self) -> Started:
        self.etcd_port, peer = free_port(), free_port()
        argv = [
            str(assets.require("etcd")),
            "--name=default",
            f"--data-dir={self.run_dir / 'etcd'}",
            f"--listen-client-urls={self.etcd_url}",
            f"--advertise-client-urls={self.etcd_url}",
            f"--listen-peer-urls=http://127.0.0.1:{peer}",
            f"--initial-advertise-peer-urls=http://127.0.0.1:{peer}",
            f"--initial-cluster=default=http://127.0.0.1:{peer}",
            "--unsafe-no-fsync=true",
            "--log-level=warn",
        ]
        etcd = Process("etcd", argv, self.run_dir)
        etcd.start()
        return etcd, [self.etcd_port, peer]

    def _apiserver_argv(self) -> list[str]:
        pki = self.pki
        return [
            str(assets.require("kube-apiserver")),
            f"--etcd-servers={self.etcd_url}",
            "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1",
            f"--secure-port={self.apiserver_port}",
            f"--cert-dir={self.run_dir / 'apiserver-certs'}",
            f"--tls-cert-file={pki.serving_cert}",
            f"--tls-private-key-file={pki.serving_key}",
            f"--client-ca-file={pki.ca_cert}",
            "--authorization-mode=RBAC",
            "--service-cluster-ip-range=10.0.0.0/24",
            "--allow-privileged=true",
            # No controller-manager in tier 1 creates the default ServiceAccounts.
            "--disable-admission-plugins=ServiceAccount",
            "--service-account-issuer=https://kubernetes.default.svc",
            f"--service-account-key-file={pki.sa_pub}",
            f"--service-account-signing-key-file={pki.sa_key}",
            f"--watch-cache={'true' if self.watch_cache else 'false'}",
            "--profiling=false",
            "--max-requests-inflight=1000",
            "--max-mutating-requests-inflight=500",
            # kwok's fake kubelets serve pods/log on 127.0.0.1; node names do not resolve.
            "--kubelet-preferred-address-types=InternalIP",
            # A real node's kubelet (tests/controlplane/node.py) takes the test CA's clients.
            f"--kubelet-client-certificate={pki.admin_cert}",
            f"--kubelet-client-key={pki.admin_key}",
            "--v=0",
        ]

    def start_apiserver(self) -> None:
        """Start it again on its port (the kubeconfig names it)."""
        self.apiserver = Process("kube-apiserver", self._apiserver_argv(), self.run_dir)
        self.apiserver.start()
        self._wait_apiserver_ready()

    def _apiserver_on_a_new_port(self) -> Started:
        self.apiserver_port = free_port()
        apiserver = Process("kube-apiserver", self._apiserver_argv(), self.run_dir)
        apiserver.start()
        return apiserver, [self.apiserver_port]

    def _wait_apiserver_ready(self) -> None:
        wait_until(
            lambda: self.get("/readyz") == "ok", 60, "kube-apiserver /readyz", self.apiserver
        )

    def stop_apiserver(self) -> None:
        if self.apiserver:
            self.apiserver.stop()

    def restart_apiserver(self) -> None:
        self.stop_apiserver()
        self.start_apiserver()

    def _ssl_context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(cafile=str(self.pki.ca_cert))
        ctx.load_cert_chain(str(self.pki.admin_cert), str(self.pki.admin_key))
        return ctx

    def get(self, path: str, timeout: float = 5.0) -> str:
        with urllib.request.urlopen(
            self.server + path, context=self._ssl_context(), timeout=timeout
        ) as resp:
            body: bytes = resp.read()
            return body.decode()

    def _write_kubeconfig(self) -> None:
        self.kubeconfig.write_text(
            self._kubeconfig_text(self.pki.admin_cert.read_bytes(), self.pki.admin_key.read_bytes())
        )

    def kubeconfig_for(self, user: str, groups: tuple[str, ...] = ()) -> Path:
        """A kubeconfig with a client certificate for ``user``: RBAC decides what it may do."""
        path = self.run_dir / f"kubeconfig-{user}"
        path.write_text(self._kubeconfig_text(*client_cert(self.pki, user, groups)))
        return path

    def _kubeconfig_text(self, cert: bytes, key: bytes) -> str:
        def b64(data: bytes) -> str:
            return base64.b64encode(data).decode()

        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "local",
                    "cluster": {
                        "server": self.server,
                        "certificate-authority-data": b64(self.pki.ca_cert.read_bytes()),
                    },
                }
            ],
            "users": [
                {
                    "name": "admin",
                    "user": {
                        "client-certificate-data": b64(cert),
                        "client-key-data": b64(key),
                    },
                }
            ],
            "contexts": [{"name": "local", "context": {"cluster": "local", "user": "admin"}}],
            "current-context": "local",
        }
        return yaml.safe_dump(config)

    # -- etcd ------------------------------------------------------------
    def _etcd_call(self, path: str, body: dict[str, Any] | None) -> dict[str, Any]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(
            self.etcd_url + path, data=data, method="POST" if data else "GET"
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            result: dict[str, Any] = json.loads(resp.read())
            return result

    def etcd_revision(self) -> int:
        header = self._etcd_call("/v3/kv/range", {"key": base64.b64encode(b"/").decode()})["header"]
        return int(header["revision"])

    def compact_etcd(self) -> int:
        """Compact etcd to its current revision, so resuming an older watch gets 410 Gone."""
        revision = self.etcd_revision()
        self._etcd_call("/v3/kv/compaction", {"revision": str(revision), "physical": True})
        return revision

    # -- tier 2 ----------------------------------------------------------
    def start_full_tier(
        self, nodes: int = 2, *, kwok: bool = True, controller_args: tuple[str, ...] = ()
    ) -> None:
        """Controller-manager, scheduler and kwok with ``nodes`` fake nodes.

        ``kwok=False``: no kwok (a real node's tests); ``controller_args``: added to the
        controller-manager's.
        """
        if self.extras:
            return
        kcfg = str(self.kubeconfig)
        common = [
            f"--kubeconfig={kcfg}",
            f"--authentication-kubeconfig={kcfg}",
            f"--authorization-kubeconfig={kcfg}",
            "--leader-elect=false",
            "--bind-address=127.0.0.1",
        ]
        kcm = [
            str(assets.require("kube-controller-manager")),
            *common,
            "--secure-port={port}",
            f"--service-account-private-key-file={self.pki.sa_key}",
            f"--root-ca-file={self.pki.ca_cert}",
            "--use-service-account-credentials=false",
            "--controllers=*,-nodeipam",
            "--concurrent-deployment-syncs=10",
            "--concurrent-replicaset-syncs=10",
            "--kube-api-qps=200",
            "--kube-api-burst=400",
            *controller_args,
        ]
        scheduler = [
            str(assets.require("kube-scheduler")),
            *common,
            "--secure-port={port}",
            "--kube-api-qps=200",
            "--kube-api-burst=400",
        ]
        kwok_argv = [  # {port}: kwok's kubelet API, where pods/log is proxied
            str(assets.require("kwok")),
            f"--kubeconfig={kcfg}",
            "--manage-all-nodes=false",
            f"--manage-nodes-with-annotation-selector={FAKE_NODE_ANNOTATION}=fake",
            "--node-ip=127.0.0.1",
            "--node-port={port}",
            # Leases renewed every 10 s: the node-heartbeat-with-lease stage posts status only
            # every ~10 min and counts on them; without, the controller-manager marks every fake
            # node Unknown after its grace period (`make demo` showed Ready -> Unknown).
            f"--node-lease-duration-seconds={NODE_LEASE_SECONDS}",
            "--server-address=127.0.0.1:{port}",
            f"--tls-cert-file={self.pki.serving_cert}",
            f"--tls-private-key-file={self.pki.serving_key}",
            *(f"--config={stage}" for stage in self._stage_files()),
            f"--config={self._container_logs_config()}",
        ]
        wanted = [("kube-controller-manager", kcm), ("kube-scheduler", scheduler)]
        launchers = [
            functools.partial(self._on_a_new_port, name, argv)
            for name, argv in wanted + ([("kwok", kwok_argv)] if kwok else [])
        ]
        first = [launch() for launch in launchers]  # all at once, then each waited for
        self.extras = [start_listening(*both) for both in zip(launchers, first, strict=True)]
        for index in range(nodes):
            self.kubectl_apply(self._fake_node(f"kwok-node-{index}"))

    def _on_a_new_port(self, name: str, argv: list[str]) -> Started:
        """``name`` started with a free port where ``argv`` says ``{port}``."""
        port = free_port()
        proc = Process(name, [arg.replace("{port}", str(port)) for arg in argv], self.run_dir)
        proc.start()
        return proc, [port]

    @property
    def container_logs(self) -> Path:
        """``current.log`` / ``previous.log`` here are every kwok Pod container's logs.

        CRI log format, one line each: ``<RFC 3339 time> stdout F <text>``
        (``write_container_log``). Tests that read logs write them first.
        """
        return self.run_dir / "container-logs"

    def write_container_log(self, lines: list[str], *, previous: bool) -> None:
        self.container_logs.mkdir(exist_ok=True)
        stamp = "2026-01-01T00:00:00.000000000Z"
        text = "".join(f"{stamp} stdout F {line}\n" for line in lines)
        (self.container_logs / ("previous.log" if previous else "current.log")).write_text(text)

    def _container_logs_config(self) -> Path:
        self.container_logs.mkdir(exist_ok=True)
        for name in ("current.log", "previous.log"):
            (self.container_logs / name).touch()
        config = {
            "apiVersion": "kwok.x-k8s.io/v1alpha1",
            "kind": "ClusterLogs",
            "metadata": {"name": "every-container"},
            "spec": {
                "logs": [
                    {
                        "containers": [],
                        "logsFile": str(self.container_logs / "current.log"),
                        "previousLogsFile": str(self.container_logs / "previous.log"),
                    }
                ]
            },
        }
        path = self.run_dir / "kwok-container-logs.yaml"
        path.write_text(json.dumps(config))
        return path

    def _stage_files(self) -> list[Path]:
        stock = assets.cache_dir() / assets.STAGES_DIR
        wanted = (
            "node-fast-node-initialize.yaml",
            "node-heartbeat-with-lease-node-heartbeat-with-lease.yaml",
        )
        files = [stock / name for name in wanted if (stock / name).exists()]
        return files + sorted(STAGES_DIR.glob("*.yaml"))

    @staticmethod
    def _fake_node(name: str) -> dict[str, Any]:
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": name,
                "annotations": {FAKE_NODE_ANNOTATION: "fake"},
                "labels": {"type": "kwok", "kubernetes.io/hostname": name},
            },
            "spec": {},
            "status": {
                "allocatable": {"cpu": "64", "memory": "256Gi", "pods": "2000"},
                "capacity": {"cpu": "64", "memory": "256Gi", "pods": "2000"},
            },
        }

    def kubectl(self, *args: str, input_text: str | None = None, check: bool = True) -> str:
        import subprocess

        argv = [str(assets.require("kubectl")), f"--kubeconfig={self.kubeconfig}", *args]
        done = subprocess.run(
            argv, input=input_text, capture_output=True, text=True, timeout=120, check=False
        )
        if check and done.returncode != 0:
            raise RuntimeError(f"kubectl {' '.join(args)} failed: {done.stderr}")
        return done.stdout

    def kubectl_apply(self, manifest: dict[str, Any]) -> str:
        return self.kubectl("apply", "-f", "-", input_text=json.dumps(manifest))

    # -- teardown --------------------------------------------------------
    def stop(self) -> None:
        for proc in reversed(self.extras):
            proc.stop()
        self.extras.clear()
        self.stop_apiserver()
        if self.etcd:
            self.etcd.stop()
        shutil.rmtree(self.run_dir, ignore_errors=True)

    def __enter__(self) -> ControlPlane:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
