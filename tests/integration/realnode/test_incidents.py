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

MODEL = pytest.mark.xfail(strict=True, reason="issue #37 incident model")
# (notifier, incident) pairs that main, before the incident model, tells otherwise:
# what it tells is in the assertion message and in docs/real-node.md's table.
BEFORE_THE_MODEL = {
    *(
        ("example", name)
        for name in (
            "oom-always",  # 3: OOMKilled again after CrashLoopBackOff
            "oom-never",  # 2: Pending -> OOMKilled, then Pending -> Failed
            "image-pull",  # 2: ErrImagePull, then ImagePullBackOff
            "job-fails",  # 2: the Job, and a digest of its pods
            "deploy-stuck",  # 4: Unavailable, Stuck, and its pod's ErrImagePull, ImagePullBackOff
            "deploy-healthy",  # 2: Unavailable when created, and again when it became Available
            "never-ready",  # 0
            "stuck-creating",  # 0
        )
    ),
    *(
        ("documented", name)
        for name in (
            "crash-loop",  # 7: NotReady and CrashLoopBackOff at each restart
            "oom-always",  # 7: the same, with OOMKilled
            "oom-never",  # 2
            "image-pull",  # 6: ErrImagePull and ImagePullBackOff alternating
            "job-fails",  # 3: each pod Failed, and the Job
            "deploy-stuck",  # 3: its pod's ErrImagePull, ImagePullBackOff, then Stuck
            "deploy-healthy",  # 1: its pod Pending -> NotReady, Running (before its probe passed)
            "stuck-creating",  # 0
            "config-error",  # 2: CreateContainerConfigError again after the 60 s dedup
        )
    ),
}


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
