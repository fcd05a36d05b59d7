"""kwok's fake nodes keep their Leases renewed, so no node turns Unknown on its own.

Without the Leases the controller-manager marked every fake node Unknown after its
grace period, and `make demo` ended on a false alarm (issue #27).
"""

from __future__ import annotations

import json
import time

import pytest

from tests.controlplane.cluster import ControlPlane

pytestmark = pytest.mark.integration


def _renewed_at(plane: ControlPlane, node: str) -> str | None:
    out = plane.kubectl("-n", "kube-node-lease", "get", "lease", node, "-o", "json", check=False)
    return json.loads(out)["spec"].get("renewTime") if out else None


def test_every_fake_node_renews_its_lease(full_cluster: ControlPlane) -> None:
    nodes = ("kwok-node-0", "kwok-node-1")
    first: dict[str, str] = {}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(first) < len(nodes):
        first.update(
            {n: t for n in nodes if n not in first and (t := _renewed_at(full_cluster, n))}
        )
        time.sleep(0.5)
    assert set(first) == set(nodes), "no Lease for a fake node"
    deadline = time.monotonic() + 60  # kwok renews at a quarter of the 40 s duration
    renewed: set[str] = set()
    while time.monotonic() < deadline and renewed != set(nodes):
        renewed |= {n for n in nodes if _renewed_at(full_cluster, n) not in (None, first[n])}
        time.sleep(0.5)
    assert renewed == set(nodes), "a fake node's Lease was not renewed"
