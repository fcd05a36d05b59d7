"""A real node (containerd, runc, a bridge CNI, a kubelet) on a control plane of its own.

One node and one scenario serve every test here: the incidents play out together
(tests/controlplane/scenario.py) while two kube-notifiers watch, one with
config.example.yaml and one with the rules docs/rules.md recommends. On a machine
that cannot run a node the tests are skipped with the reason, unless
KN_REQUIRE_REAL_NODE is set (CI sets it): then they fail.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.controlplane import node
from tests.controlplane.cluster import ControlPlane
from tests.controlplane.node import CONTROLLER_ARGS, RealNode
from tests.controlplane.scenario import Notifier, Outcome, Scenario

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = {
    "example": ROOT / "config.example.yaml",
    "documented": ROOT / "tests" / "controlplane" / "rules" / "documented.yaml",
}


@pytest.fixture(scope="package")
def node_machine() -> None:
    """Skip (or, with KN_REQUIRE_REAL_NODE, fail) where this machine cannot run a node."""
    if reason := node.unavailable():
        if os.environ.get("KN_REQUIRE_REAL_NODE"):
            pytest.fail(f"no real node on this machine: {reason}", pytrace=False)
        pytest.skip(reason)


@pytest.fixture(scope="package")
def real_plane(node_machine: None) -> Iterator[ControlPlane]:
    """Its own control plane: a controller-manager that marks a lost node within 12 s."""
    plane = ControlPlane()
    try:
        plane.start()
        plane.start_full_tier(nodes=0, kwok=False, controller_args=CONTROLLER_ARGS)
        yield plane
    finally:
        plane.stop()


@pytest.fixture(scope="package")
def real_node(real_plane: ControlPlane) -> Iterator[RealNode]:
    with RealNode(real_plane) as started:
        yield started


@pytest.fixture(scope="package")
def outcome(
    real_plane: ControlPlane, real_node: RealNode, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Outcome]:
    directory = tmp_path_factory.mktemp("realnode")
    notifiers: dict[str, Notifier] = {}
    try:
        for name, config in CONFIGS.items():
            notifiers[name] = Notifier(name, config, real_plane, directory)
        scenario = Scenario(real_plane, real_node, notifiers)
        try:
            yield scenario.run()
        finally:
            scenario.recorder.stop()
    finally:
        for notifier in notifiers.values():
            notifier.stop()
