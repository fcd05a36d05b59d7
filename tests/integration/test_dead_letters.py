"""A dead letter replayed by ``kube-notifier dead-letters replay`` beside a running service
(another process, on the state file the service has open): the service's page and why-not
say what the replay did, without a restart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from notifier.cli import main
from tests.controlplane.cluster import ControlPlane
from tests.controlplane.processes import wait_until
from tests.integration.kube import Kube
from tests.integration.service import ServiceProcess, serving
from tests.integration.test_inhibition import _crashloop
from tests.integration.test_silences import CONFIG
from tests.support.webhook_server import WebhookServer

pytestmark = pytest.mark.integration

DEAD = "dead-lettered after 1 attempt: http_400"
WHEN = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ"


def test_a_replay_from_the_cli_shows_as_failed_again_then_as_delivered_by_it(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    kube = Kube(control_plane)
    ns = kube.namespace("replayed")
    kube.create_pod(ns, "web-1")
    config, state = tmp_path / "config.yaml", tmp_path / "state.db"
    config.write_text(CONFIG.format(ns=ns, url=receiver.url))
    replay = ["dead-letters", "replay", "--config", str(config), "--state", str(state)]
    receiver.answer(400, times=2)  # the send, then the first replay: refused
    with serving(config, control_plane.kubeconfig, state) as service:
        _crashloop(kube, ns, "web-1")
        now, why = f"/page/now?namespace={ns}", "/page/why?q=web-1"
        wait_until(lambda: f"hook: {DEAD}<" in _told(service, now), 30, "dead-lettered under Now")

        assert main(replay) == 1 and "sent 0, left 1" in capsys.readouterr().out
        again = rf"hook: {DEAD}; a replay at {WHEN} failed again: http_400<"
        assert re.search(again, _told(service, now)), _told(service, now)
        assert re.search(again, _told(service, why))
        letters = _table(service, "/page/delivery", "dead-letters")
        assert re.search(r" ago</span>, failed again: http_400<", letters), letters

        assert main(replay) == 0 and "sent 1, left 0" in capsys.readouterr().out
        delivered = rf"hook: delivered by a replay at {WHEN} \({DEAD}\)<"
        assert re.search(delivered, _told(service, now)), _told(service, now)
        assert re.search(rf"rule crashloops to {delivered}", _told(service, why))
        assert 'class="outcome">sent<' in _told(service, why)
        assert "No dead letters." in _table(service, "/page/delivery", "dead-letters")
    assert [r.status for r in receiver.received()] == [400, 400, 200]


def _told(service: ServiceProcess, view: str) -> str:
    """The table of a view (Now's firing list, why-not's decisions) as its HTML says it."""
    return _table(service, view, "firing" if view.startswith("/page/now") else "decisions")


def _table(service: ServiceProcess, view: str, table: str) -> str:
    status, html = service.get(view)
    assert status == 200, html
    return html.split(f'id="{table}"')[1].split("</table>", maxsplit=1)[0]
