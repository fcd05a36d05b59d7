"""The page tells the truth about itself on the real control plane: a banner while the API
server is gone (and none once it is back, however long it was gone), and what a sink that
refuses or fails made of what it was told."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from tests.controlplane.cluster import ControlPlane
from tests.controlplane.processes import wait_until
from tests.integration.browser import chromium, missing, text_of, wait_reloading
from tests.integration.kube import Kube
from tests.integration.service import ServiceProcess
from tests.integration.test_inhibition import _crashloop
from tests.integration.test_silences import CONFIG
from tests.support.webhook_server import WebhookServer

pytestmark = pytest.mark.integration

BACKOFF_CAP = 30.0  # a watch's longest wait between tries (ReflectorSettings.backoff_cap)
LONG_WAIT = 20.0  # a wait longer than the 10 s the banner has to go once the server is back
ROUND = re.compile(r"cannot reach the API server at .*\(next in ([\d.]+)s\), for (\d+)s now")

SINKS = """
watch:
  namespaces: [{ns}]
  kinds: [Pod]
sinks:
  - {{name: rejecting, type: webhook, url: "{rejecting}"}}
  - {{name: flaky, type: webhook, url: "{flaky}"}}
  - {{name: taking, type: webhook, url: "{taking}"}}
rules:
  - name: crashloops
    match: {{kinds: [Pod], to: [CrashLoopBackOff]}}
    sinks: [rejecting, flaky, taking]
"""


@pytest.fixture
def browser() -> Iterator[WebDriver]:
    if missing():  # as the control plane's assets: missing fails, it never skips
        pytest.fail(missing(), pytrace=False)
    with chromium() as driver:
        yield driver


def _banner(driver: WebDriver) -> str:
    return text_of(driver, "#health")


def test_the_banner_shows_while_the_api_server_is_down_and_goes_once_it_is_back(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path, browser: WebDriver
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("banner")
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG.format(ns=ns, url=receiver.url))
    service = ServiceProcess(config, control_plane.kubeconfig, "none").start()
    try:
        service.wait_ready()
        browser.get(f"http://127.0.0.1:{service.port}/page/now")
        assert _banner(browser) == "" and "as of" in text_of(browser, "#as-of")
        control_plane.stop_apiserver()
        stopped = time.monotonic()
        try:
            wait_reloading(browser, lambda d: "watch-open-Pod" in _banner(d), 10)
            seconds_to_banner = time.monotonic() - stopped
            assert "Not ready since" in _banner(browser)
            assert _verdict(service).startswith("not ready: ")
            # Gone longer than the backoff cap: the watch now waits 22.5-30 s between tries,
            # so only the outage's prober can bring the page back within 10 s.
            service.wait_for_output(_deep_in_backoff, timeout=120)
        finally:
            control_plane.start_apiserver()
        back = time.monotonic()
        outage = back - stopped
        wait_reloading(browser, lambda d: _banner(d) == "" and bool(text_of(d, "#as-of")), 10)
        seconds_to_clear = time.monotonic() - back
        assert _verdict(service) == "ready"

        shown = text_of(browser, "#as-of")  # the page's own refresh, once turned on
        browser.find_element(By.ID, "auto-refresh").click()
        WebDriverWait(browser, 20).until(lambda d: text_of(d, "#as-of") not in ("", shown))
        assert browser.find_element(By.ID, "auto-refresh").is_selected()  # remembered
    finally:
        assert service.stop() == 0, service.output()
    print(f"banner {seconds_to_banner:.1f}s after the API server stopped, gone "
          f"{seconds_to_clear:.1f}s after it was back from an outage of {outage:.0f}s")  # fmt: skip


def _deep_in_backoff(log: str) -> bool:
    """A retry round, logged after the backoff cap, whose next try is more than 10 s away."""
    for line in log.splitlines():
        found = ROUND.search(line)
        if found and float(found[1]) >= LONG_WAIT and int(found[2]) >= BACKOFF_CAP:
            return True
    return False


def _verdict(service: ServiceProcess) -> str:
    """/readyz's verdict, which comes first in its body."""
    body = json.loads(service.get("/readyz")[1])
    assert next(iter(body)) == "verdict"
    return str(body["verdict"])


def test_a_sink_that_refuses_is_dead_lettered_and_one_that_fails_is_retrying_not_told(
    control_plane: ControlPlane, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("told")
    kube.create_pod(ns, "web-1")
    with WebhookServer() as rejecting, WebhookServer() as flaky, WebhookServer() as taking:
        rejecting.answer(400, times=None)
        flaky.answer(500, times=None)
        config = tmp_path / "config.yaml"
        config.write_text(SINKS.format(ns=ns, rejecting=rejecting.url, flaky=flaky.url,
                                       taking=taking.url))  # fmt: skip
        service = ServiceProcess(config, control_plane.kubeconfig, tmp_path / "state.db").start()
        try:
            service.wait_ready()
            _crashloop(kube, ns, "web-1")
            now = f"/page/now?namespace={ns}"
            wait_until(lambda: "rejecting: dead-lettered" in service.get(now)[1], 30, "Now")
            wait_until(lambda: "flaky: retrying after attempt" in service.get(now)[1], 30, "Now")
            firing = _section(service.get(now)[1], "firing")
            assert "rejecting: dead-lettered after 1 attempt: http_400" in firing
            assert "taking: delivered" in firing and "http_500" in firing
            assert "rejecting: delivered" not in firing and "flaky: delivered" not in firing
            why = _section(service.get("/page/why?q=web-1")[1], "decisions")
            assert 'class="outcome">dead-lettered<' in why and '">sent<' not in why
            assert "rule crashloops to rejecting: dead-lettered after 1 attempt: http_400" in why
            assert "rule crashloops to flaky: retrying after attempt" in why
            assert "rule crashloops to taking: delivered" in why
        finally:
            assert service.stop() == 0, service.output()


def _section(html: str, table: str) -> str:
    return html.split(f'id="{table}"')[1].split("</table>", maxsplit=1)[0]
