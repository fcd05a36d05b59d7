"""Issue #37's Done-when on a real node: each incident told once, resolved where asked,
a completing Job and a healthy Deployment not at all, and nothing else.

The incidents play out together in one scenario (the ``outcome`` fixture, about
2.5 minutes); each test reads what one notifier told about one incident.
"""

from __future__ import annotations

import pytest

from tests.controlplane.incidents import INCIDENTS, Incident
from tests.controlplane.node import RealNode
from tests.controlplane.processes import wait_until
from tests.controlplane.scenario import OTHER, Outcome
from tests.integration.realnode.conftest import CONFIGS

pytestmark = [pytest.mark.integration, pytest.mark.timeout(420)]


def _cases() -> list[object]:
    cases: list[object] = []
    for config in CONFIGS:
        for incident in INCIDENTS:
            cases.append(pytest.param(config, incident, id=f"{config}-{incident.name}"))
    return cases


@pytest.mark.parametrize(("config", "incident"), _cases())
def test_each_incident_is_told_once(outcome: Outcome, config: str, incident: Incident) -> None:
    told = outcome.of(config, incident.name)
    said = "\n".join(told.messages) or "nothing"
    assert (told.count - told.resolutions, told.resolutions) == (
        incident.wanted,
        incident.resolved,
    ), f"{config} told about {incident.title}:\n{said}"


@pytest.mark.parametrize("config", list(CONFIGS))
def test_nothing_is_told_beyond_the_incidents(outcome: Outcome, config: str) -> None:
    named = {incident.name for incident in INCIDENTS}
    beyond = {name: t.messages for name, t in outcome.told[config].items() if name not in named}
    assert not beyond, f"{config} told about what is no incident ({OTHER}: no namespace): {beyond}"


def test_logs_come_from_the_real_kubelet(outcome: Outcome, real_node: RealNode) -> None:
    """The API server reaches the kubelet in its namespace: pods/log of the crash loop's
    last run (between two runs the kubelet may have removed the one before: ask again)."""

    def logged() -> bool:
        for previous in ("--previous=true", "--previous=false"):
            logs = real_node.plane.kubectl(
                "logs", "-n", "crash-loop", "crasher", previous, check=False
            )
            if "crashing on purpose" in logs:
                return True
        return False

    wait_until(logged, 60, "the crash loop's log through the API server")
