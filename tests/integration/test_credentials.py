"""The client authenticates to the real API server as kubectl would, and renews after a 401.

A ServiceAccount token (from the TokenRequest API, as a kubelet gets one)
is handed over three ways: in a token file, by an exec credential plugin,
and by a plugin whose first token is wrong: the 401 makes the client drop
it, and the next request runs the plugin again and succeeds. A token file
rewritten after a 401 is read again at once.
"""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml

from notifier.source.client import ApiError, RawClient
from notifier.source.credentials import load_access
from tests.controlplane.cluster import ControlPlane

pytestmark = pytest.mark.integration

PLUGIN = """\
import json, sys
from pathlib import Path
here = Path(sys.argv[1])
runs = here / "runs"
count = int(runs.read_text()) + 1 if runs.exists() else 1
runs.write_text(str(count))
token = (here / "token").read_text() if count > 1 else "not-a-valid-token"
print(json.dumps({"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                  "status": {"token": token}}))
"""


@pytest.fixture(scope="module")
def viewer_token(control_plane: ControlPlane) -> str:
    """A token for a ServiceAccount that may list pods."""
    name = f"viewer-{uuid.uuid4().hex[:6]}"
    control_plane.kubectl("create", "serviceaccount", name, "-n", "default")
    control_plane.kubectl("create", "clusterrole", name, "--verb=list", "--resource=pods")
    control_plane.kubectl(
        "create", "clusterrolebinding", name, f"--clusterrole={name}",
        f"--serviceaccount=default:{name}",
    )  # fmt: skip
    return control_plane.kubectl("create", "token", name, "-n", "default").strip()


def kubeconfig(plane: ControlPlane, path: Path, user: dict[str, Any]) -> Path:
    admin = yaml.safe_load(plane.kubeconfig.read_text())
    admin["users"] = [{"name": "u", "user": user}]
    admin["contexts"] = [
        {"name": "x", "context": {"cluster": admin["clusters"][0]["name"], "user": "u"}}
    ]
    admin["current-context"] = "x"
    path.write_text(yaml.safe_dump(admin))
    return path


def list_one_pod(path: Path) -> bytes:
    return RawClient(load_access(str(path))).get("/api/v1/pods", {"limit": "1"})


def test_token_file(control_plane: ControlPlane, viewer_token: str, tmp_path: Path) -> None:
    (tmp_path / "token").write_text(viewer_token)
    path = kubeconfig(control_plane, tmp_path / "config", {"tokenFile": "token"})

    assert b'"kind":"PodList"' in list_one_pod(path)


def test_a_token_file_is_read_again_after_a_401(
    control_plane: ControlPlane, viewer_token: str, tmp_path: Path
) -> None:
    (tmp_path / "token").write_text("not-a-valid-token")
    path = kubeconfig(control_plane, tmp_path / "config", {"tokenFile": "token"})
    client = RawClient(load_access(str(path)))
    with pytest.raises(ApiError) as raised:
        client.get("/api/v1/pods", {"limit": "1"})
    assert raised.value.status == 401

    (tmp_path / "token").write_text(viewer_token)  # rotated, as the kubelet does

    assert b'"kind":"PodList"' in client.get("/api/v1/pods", {"limit": "1"})


def test_exec_plugin_and_renewal_after_401(
    control_plane: ControlPlane, viewer_token: str, tmp_path: Path
) -> None:
    (tmp_path / "token").write_text(viewer_token)
    (tmp_path / "plugin.py").write_text(PLUGIN)
    args = [str(tmp_path / "plugin.py"), str(tmp_path)]
    api_version = "client.authentication.k8s.io/v1"
    user = {"exec": {"command": sys.executable, "args": args, "apiVersion": api_version}}
    client = RawClient(load_access(str(kubeconfig(control_plane, tmp_path / "config", user))))

    with pytest.raises(ApiError) as raised:
        client.get("/api/v1/pods", {"limit": "1"})  # the plugin's first token is refused
    assert raised.value.status == 401

    assert b'"kind":"PodList"' in client.get("/api/v1/pods", {"limit": "1"})
    assert client.get("/api/v1/pods", {"limit": "1"})
    assert (tmp_path / "runs").read_text() == "2"  # run again after the 401, then cached


def test_a_token_without_rights_is_refused_with_403(
    control_plane: ControlPlane, tmp_path: Path
) -> None:
    name = f"nobody-{uuid.uuid4().hex[:6]}"
    control_plane.kubectl("create", "serviceaccount", name, "-n", "default")
    token = control_plane.kubectl("create", "token", name, "-n", "default").strip()
    path = kubeconfig(control_plane, tmp_path / "config", {"token": token})

    with pytest.raises(ApiError) as raised:
        list_one_pod(path)
    assert raised.value.status == 403


def test_a_kubeconfig_list_in_the_environment_is_merged(
    control_plane: ControlPlane, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = yaml.safe_load(control_plane.kubeconfig.read_text())
    first = {key: whole[key] for key in ("apiVersion", "kind", "clusters", "users")}
    second = {
        "apiVersion": "v1",
        "kind": "Config",
        "contexts": whole["contexts"],
        "current-context": whole["current-context"],
    }
    paths = [tmp_path / "clusters.yaml", tmp_path / "contexts.yaml"]
    for path, part in zip(paths, (first, second), strict=True):
        path.write_text(yaml.safe_dump(part))
    monkeypatch.setenv("KUBECONFIG", ":".join(str(p) for p in paths))

    import argparse

    from notifier.cli.run import add_run_command
    from notifier.source.access import cluster_access

    parser = argparse.ArgumentParser()
    add_run_command(parser.add_subparsers())
    args = parser.parse_args(["run"])
    assert args.kubeconfig is None  # the flag does not swallow the list
    client = RawClient(cluster_access(args.kubeconfig, None))
    assert b"gitVersion" in client.get("/version", {})
