"""Issue #37's Done-when on a real node: each incident told once, resolved where asked,
a completing Job and a healthy Deployment not at all, and nothing else.

The incidents play out together in one scenario (the ``outcome`` fixture, about
2.5 minutes); each test reads what one notifier told about one incident.
"""

from __future__ import annotations

import pytest

from tests.controlplane.incidents import INCIDENTS, Incident
from tests.controlplane.node import RealNode
from tests.controlplane.scenario import OTHER, Outcome
from tests.integration.realnode.conftest import CONFIGS

pytestmark = [pytest.mark.integration, pytest.mark.timeout(420)]

MODEL = pytest.mark.xfail(strict=True, reason="issue #37 incident model")
# (notifier, incident) pairs that main, before the incident model, tells otherwise:
# what it tells is in the assertion message and in docs/real-node.md's table.
BEFORE_THE_MODEL: set[tuple[str, str]] = set()


def _cases() -> list[object]:
    cases: list[object] = []
    for config in CONFIGS:
        for incident in INCIDENTS:
            marks = [MODEL] if (config, incident.name) in BEFORE_THE_MODEL else []
            cases.append(
                pytest.param(config, incident, id=f"{config}-{incident.name}", marks=marks)
            )
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
    """The API server reaches the kubelet in its namespace: pods/log, the previous run's."""
    logs = real_node.plane.kubectl("logs", "-n", "crash-loop", "crasher", "--previous")
    assert "crashing on purpose" in logs
