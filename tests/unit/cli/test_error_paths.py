"""Every CLI error path is one line and a documented exit code (issue #27, finding 2).

The API server here is a loopback HTTP server answering as a real one does
when it refuses a token (401 with a Status body), or a port nothing listens on.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from notifier.exits import Exit
from tests.support.webhook_server import Reply, WebhookServer
from tests.unit.cli.conftest import Cli
from tests.unit.cli.test_sink_files import config as sink_files_config

Write = Callable[[str, str], Path]
ROOT = Path(__file__).resolve().parents[3]
REFUSED = json.dumps(
    {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": "Unauthorized",
     "reason": "Unauthorized", "code": 401}
).encode()  # fmt: skip


def kubeconfig(write: Write, server: str) -> Path:
    return write(
        "kubeconfig",
        "apiVersion: v1\nkind: Config\ncurrent-context: x\n"
        f"clusters: [{{name: c, cluster: {{server: '{server}'}}}}]\n"
        "users: [{name: u, user: {token: expired}}]\n"
        "contexts: [{name: x, context: {cluster: c, user: u}}]\n",
    )


@pytest.fixture
def refusing() -> Iterator[WebhookServer]:
    with WebhookServer() as server:
        server.answer(Reply(401, REFUSED, {"Content-Type": "application/json"}), times=None)
        yield server


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def run_service(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "notifier", "run", "--state", "none", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )


def test_a_refused_token_says_so_and_what_to_check(
    refusing: WebhookServer, write: Write, closed_port: int
) -> None:
    config = write("c.yaml", "")
    kube = kubeconfig(write, refusing.base_url)
    done = run_service("--config", str(config), "--kubeconfig", str(kube),
                       "--listen", f"127.0.0.1:{closed_port}")  # fmt: skip
    assert done.returncode == Exit.CLUSTER
    assert done.stderr.splitlines()[-1] == (
        f"kube-notifier: the API server at {refusing.base_url} refused our credentials "
        "(401 Unauthorized) (Unauthorized): check that the kubeconfig's token or client "
        "certificate has not expired, that its exec plugin works on its own (kubectl get pods "
        "with the same --kubeconfig/--context), and that the context names the cluster you mean"
    )
    assert "Grant list" not in done.stderr and "Traceback" not in done.stderr


def test_silence_list_against_no_api_server_is_one_line(
    cli: Cli, write: Write, closed_port: int
) -> None:
    server = f"http://127.0.0.1:{closed_port}"
    kube = kubeconfig(write, server)
    run = cli("silence", "list", "--config-map", "ops/silences", "--kubeconfig", str(kube))
    assert (run.code, run.out) == (Exit.CLUSTER, "")
    assert run.err == (
        f"error: cannot reach the API server at {server}: connection refused (is the cluster "
        "up, and do --kubeconfig/--context name it?)\n"
    )


def test_silence_list_with_refused_credentials_is_one_line(
    cli: Cli, write: Write, refusing: WebhookServer
) -> None:
    kube = kubeconfig(write, refusing.base_url)
    run = cli("silence", "list", "--config-map", "ops/silences", "--kubeconfig", str(kube))
    assert run.code == Exit.CLUSTER
    assert run.err.count("\n") == 1 and "refused our credentials (401 Unauthorized)" in run.err


def test_silence_without_a_config_map_is_a_usage_error(cli: Cli) -> None:
    run = cli("silence", "list", "--config-map", "")
    assert run.code == Exit.USAGE
    assert run.err == "error: give --config-map NAMESPACE/NAME (or set KUBE_NOTIFIER_SILENCES)\n"


def test_a_port_in_use_is_one_line(write: Write) -> None:
    config = write("c.yaml", "")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_service("--config", str(config), "--listen", f"127.0.0.1:{port}")
    assert done.returncode == Exit.LISTEN
    assert done.stderr.splitlines()[-1] == (
        f"kube-notifier: cannot listen on 127.0.0.1:{port} for /healthz, /readyz and /metrics: "
        "address already in use (is another kube-notifier running? choose another address "
        "with --listen or KUBE_NOTIFIER_LISTEN)"
    )
    assert "Traceback" not in done.stderr


def test_a_config_error_has_one_code_in_check_and_in_run(
    cli: Cli, write: Write, closed_port: int
) -> None:
    config = write("c.yaml", "rules:\n  - name: x\n    match: {kinds: [Pood]}\n")
    check = cli("rules", "check", str(config))
    done = run_service("--config", str(config), "--listen", f"127.0.0.1:{closed_port}")
    assert check.code == done.returncode == Exit.CONFIG
    assert int(Exit.CONFIG) != int(Exit.USAGE)
    assert "Pood" in check.out and "Pood" in done.stderr


def test_usage_errors_stay_argparse_s(cli: Cli) -> None:
    assert cli("rules", "check").code == Exit.USAGE
    assert cli("run", "--no-such-flag").code == Exit.USAGE


def test_the_exit_codes_are_documented() -> None:
    text = (ROOT / "docs" / "cli.md").read_text().split("## Exit codes", 1)[1]
    codes = [
        int(cells[1].strip(" `"))
        for line in text.split("\n## ", 1)[0].splitlines()
        if (cells := line.split("|"))[1:2] and cells[1].strip(" `").isdigit()
    ]
    assert codes == sorted(int(code) for code in Exit)


def test_rules_test_with_silences_from_no_api_server_is_one_line(
    cli: Cli, write: Write, closed_port: int
) -> None:
    server = f"http://127.0.0.1:{closed_port}"
    kube = kubeconfig(write, server)
    config = write("c.yaml", "")
    pod = write("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: d}\n")
    run = cli("rules", "test", str(config), "--new", str(pod),
              "--silences-config-map", "ops/silences", "--kubeconfig", str(kube))  # fmt: skip
    assert run.code == Exit.FAILED
    assert run.out == (
        f"error: silences from ops/silences: cannot reach the API server at {server}: "
        "connection refused (is the cluster up, and do --kubeconfig/--context name it?)\n"
    )


def test_an_rbac_check_that_cannot_ask_the_cluster_fails(
    cli: Cli, write: Write, refusing: WebhookServer
) -> None:
    kube = kubeconfig(write, refusing.base_url)
    config = write(
        "c.yaml",
        "sinks: [{name: o, type: console}]\n"
        "rules: [{name: r, match: {kinds: [Pod]}, sinks: [o], enrich: [logs]}]\n",
    )
    run = cli(
        "rules", "check", str(config), "--service-account", "ops/kn", "--kubeconfig", str(kube)
    )
    assert run.code == Exit.CLUSTER
    assert run.out.splitlines()[-1].startswith(
        f"error: cannot ask about ops/kn: the API server at {refusing.base_url} refused our "
        "credentials (401 Unauthorized)"
    )


def test_run_locates_a_sink_it_cannot_build_before_it_asks_the_cluster(
    write: Write, tmp_path: Path, closed_port: int
) -> None:
    missing = tmp_path / "absent"
    path = write("c.yaml", sink_files_config(missing))
    kube = kubeconfig(write, f"http://127.0.0.1:{closed_port}")  # no cluster: never asked
    done = run_service("--config", str(path), "--kubeconfig", str(kube),
                       "--listen", f"127.0.0.1:{closed_port}")  # fmt: skip
    assert done.returncode == Exit.CONFIG
    lines = done.stderr.splitlines()
    assert lines[:3] == [
        "kube-notifier: invalid config:",
        "2 errors in config",
        f"{path}:5:5: sinks[0].token_file: sink 's': cannot read token_file "
        f"'{missing}/token': No such file or directory",
    ]
    assert lines[3].startswith(f"{path}:9:5: sinks[1].ca_file: sink 'h': cannot use its TLS")
    assert len(lines) == 4
