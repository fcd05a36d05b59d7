"""An owner chain is followed through the running config's kinds, custom resources too."""

from __future__ import annotations

from pathlib import Path

from notifier.config import read_config_text
from notifier.enrichment.owners import owner_path
from notifier.kinds.registry import KINDS

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples" / "custom-resources.yaml"
DECLARED = read_config_text(EXAMPLES.read_text(), "custom-resources.yaml", environ={}).kinds


def test_an_owner_of_a_declared_custom_kind_is_placed_through_the_configs_kinds() -> None:
    path = owner_path("Rollout", "shop", "web", kinds=DECLARED)
    assert path == "/apis/argoproj.io/v1alpha1/namespaces/shop/rollouts/web"


def test_an_owner_of_a_kind_the_kinds_do_not_know_ends_the_chain() -> None:
    assert owner_path("Rollout", "shop", "web", kinds=KINDS) is None
    assert owner_path("Deployment", "shop", "web", kinds=KINDS) == (
        "/apis/apps/v1/namespaces/shop/deployments/web"
    )
