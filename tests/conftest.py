"""Session fixtures: the real control plane, started once and stopped by PID."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.controlplane import assets
from tests.controlplane.cluster import ControlPlane


def _require_assets() -> None:
    missing = [name for name in ("etcd", "kube-apiserver") if assets.find(name) is None]
    if missing:
        pytest.fail(f"control-plane assets missing: {missing}; run `make assets`", pytrace=False)


@pytest.fixture(scope="session")
def control_plane() -> Iterator[ControlPlane]:
    """Tier 1: etcd + kube-apiserver on 127.0.0.1, RBAC on, admin kubeconfig."""
    _require_assets()
    plane = ControlPlane()
    try:
        plane.start()
        yield plane
    finally:
        plane.stop()


@pytest.fixture(scope="session")
def full_cluster(control_plane: ControlPlane) -> ControlPlane:
    """Tier 2: the same control plane plus controller-manager, scheduler and kwok nodes."""
    control_plane.start_full_tier()
    return control_plane
