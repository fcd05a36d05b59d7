"""The on-call's page in headless Chromium, against the service on the real control plane."""

from __future__ import annotations

import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.expected_conditions import alert_is_present
from selenium.webdriver.support.ui import WebDriverWait

from notifier.cli import main
from tests.controlplane.cluster import ControlPlane
from tests.integration.browser import chromium, missing, text_of, wait_reloading
from tests.integration.kube import Kube
from tests.integration.service import ServiceProcess
from tests.integration.test_inhibition import _crashloop
from tests.integration.test_silences import CONFIG, SILENCED, _wait_metric
from tests.support.webhook_server import WebhookServer

pytestmark = pytest.mark.integration

HOSTILE = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">'


@pytest.fixture
def browser() -> Iterator[WebDriver]:
    if missing():  # as the control plane's assets: missing fails, it never skips
        pytest.fail(missing(), pytrace=False)
    with chromium() as driver:
        yield driver


def _service(
    plane: ControlPlane, tmp_path: Path, ns: str, url: str, *extra: str, state: Path | str = "none",
    rules: str = CONFIG,
) -> ServiceProcess:  # fmt: skip
    config = tmp_path / "config.yaml"
    config.write_text(rules.format(ns=ns, url=url))
    service = ServiceProcess(config, plane.kubeconfig, state, extra=list(extra)).start()
    service.wait_ready()
    return service


def _shown(driver: WebDriver, css: str, *words: str) -> bool:
    text = text_of(driver, css)
    return all(word in text for word in words)


def test_a_crash_loop_shows_and_a_silence_made_in_the_page_mutes_the_next(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path, browser: WebDriver,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    kube = Kube(control_plane)
    ns = kube.namespace("page")
    where = f"{ns}/kube-notifier-silences"
    for name in ("web-1", "api-1"):
        kube.create_pod(ns, name)
    service = _service(control_plane, tmp_path, ns, receiver.url, "--silences", where,
                       "--page-writes")  # fmt: skip
    page = f"http://127.0.0.1:{service.port}/page"
    try:
        browser.get(f"{page}/now?namespace={ns}")
        started = time.monotonic()
        _crashloop(kube, ns, "web-1")
        wait_reloading(browser, lambda d: _shown(d, "#firing", "web-1", "CrashLoopBackOff"), 15)
        seconds_to_show = time.monotonic() - started
        assert _shown(browser, "#firing", "crashloops", "hook")
        receiver.wait_for_count(1, timeout=20)

        browser.get(f"{page}/silences")
        browser.find_element(By.ID, "preview-match").send_keys(f"namespace={ns},name=web-*")
        WebDriverWait(browser, 10).until(lambda d: _shown(d, "#preview", "mute 1", "web-1"))
        form = browser.find_element(By.ID, "add-silence")
        match = form.find_element(By.NAME, "match")
        match.clear()
        match.send_keys(f"namespace={ns},name=api-*")
        form.find_element(By.NAME, "author").send_keys("ana")
        form.find_element(By.NAME, "comment").send_keys("deploying api")
        form.find_element(By.TAG_NAME, "button").click()
        WebDriverWait(browser, 10).until(lambda d: _shown(d, "#notice", "added"))
        wait_reloading(browser, lambda d: _shown(d, "#silences", "deploying api", "ana"), 15)
        assert main(["silence", "list", "--config-map", where,
                     "--kubeconfig", str(control_plane.kubeconfig)]) == 0  # fmt: skip
        assert "ana: deploying api" in capsys.readouterr().out

        _crashloop(kube, ns, "api-1")
        _wait_metric(service, SILENCED)
        browser.get(f"{page}/why")
        search = browser.find_element(By.NAME, "q")
        search.send_keys("api-1")
        search.submit()
        WebDriverWait(browser, 10).until(lambda d: _shown(d, "#decisions", "api-1", "silenced"))
        assert "web-1" not in text_of(browser, "#decisions")

        browser.get(_forged_post(f"{page}/silences", "name=*"))  # another origin: refused
        WebDriverWait(browser, 10).until(lambda d: "another origin" in d.page_source)
        browser.get(f"{page}/silences")
        browser.find_element(By.CSS_SELECTOR, "#silences form button").click()
        WebDriverWait(browser, 5).until(alert_is_present()).accept()  # page.js asks first
        WebDriverWait(browser, 10).until(lambda d: _shown(d, "#notice", "expired"))
        assert main(["silence", "list", "--config-map", where,
                     "--kubeconfig", str(control_plane.kubeconfig)]) == 0  # fmt: skip
        assert "deploying api" not in capsys.readouterr().out  # ended: listed with --all only
    finally:
        assert service.stop() == 0, service.output()
    assert {r.json()["object"]["name"] for r in receiver.received()} == {"web-1"}
    print(f"crash loop shown under Now {seconds_to_show:.1f}s after the patch")


def test_hostile_text_renders_as_text_and_a_read_only_page_refuses_a_forged_post(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path, browser: WebDriver
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("hostile")
    where = f"{ns}/kube-notifier-silences"
    kube.create_pod(ns, "victim")
    service = _service(control_plane, tmp_path, ns, receiver.url, "--silences", where)
    page = f"http://127.0.0.1:{service.port}/page"
    try:
        status = {"phase": "Running", "reason": HOSTILE, "message": "exe.\u202egpj.txt"}
        kube.core.patch_namespaced_pod_status("victim", ns, {"status": status})
        browser.get(f"{page}/why?q=victim")
        wait_reloading(browser, lambda d: _shown(d, "#decisions", "status.reason"), 15)
        assert HOSTILE in text_of(browser, "#decisions")  # shown as the text it is
        assert "exe.[U+202E]gpj.txt" in text_of(browser, "#decisions")  # shown, not obeyed
        assert "\u202e" not in browser.page_source
        browser.get(f"{page}/why?q={urllib.parse.quote(HOSTILE)}")  # reflected as text too
        assert browser.find_element(By.NAME, "q").get_attribute("value") == HOSTILE
        assert HOSTILE in text_of(browser, "#decisions")
        assert browser.execute_script("return window.pwned === undefined") is True
        assert browser.find_elements(By.CSS_SELECTOR, "main img, main script") == []

        browser.get(f"{page}/silences")
        assert browser.find_elements(By.ID, "add-silence") == []
        assert "read-only" in text_of(browser, "nav")
        browser.get(_forged_post(f"{page}/silences", "name=*"))
        WebDriverWait(browser, 10).until(lambda d: "refused" in d.page_source)
        assert _post(f"{page}/silences", service.port) == 403
    finally:
        assert service.stop() == 0, service.output()
    assert main(["silence", "list", "--all", "--config-map", where,
                 "--kubeconfig", str(control_plane.kubeconfig)]) == 0  # fmt: skip


def test_a_crash_loop_a_for_rule_times_shows_under_pending_with_when_it_fires(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path, browser: WebDriver
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("pending")
    kube.create_pod(ns, "web-1")
    rules = CONFIG.replace("to: [CrashLoopBackOff]}}", "to: [CrashLoopBackOff], for: 60s}}")
    service = _service(control_plane, tmp_path, ns, receiver.url, rules=rules)
    page = f"http://127.0.0.1:{service.port}/page/now?namespace={ns}"
    try:
        browser.get(page)
        patched = time.time()
        _crashloop(kube, ns, "web-1")
        wait_reloading(browser, lambda d: _shown(d, "#pending", "web-1", "CrashLoopBackOff"), 15)
        seconds_to_show, pending = time.time() - patched, text_of(browser, "#pending")
        assert "crashloops" in pending
        assert "Nothing told or muted is firing" in text_of(browser, "#firing")
        shown = re.search(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)Z \(in (\d+)s\)", pending)
        assert shown, pending
        fires_at = datetime.strptime(shown[1], "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
        assert patched + 59 <= fires_at.timestamp() <= time.time() + 60  # seen, then 60 s
        assert 40 <= int(shown[2]) <= 60
        browser.get(f"{page}&rule=another")
        assert "No for: timer is waiting under this filter" in text_of(browser, "#pending")
    finally:
        assert service.stop() == 0, service.output()
    assert receiver.received() == []  # stopped before its minute was up: nothing told
    print(f"pending timer shown under Now {seconds_to_show:.1f}s after the patch")


def _forged_post(action: str, match: str) -> str:
    """A page of another origin (a data: URL) that posts a silence to ``action`` as it opens."""
    return (f"data:text/html,<form method=post action='{action}'><input name=match "
            f"value='{match}'></form><script>document.forms[0].submit()</script>")  # fmt: skip


def test_a_dead_letter_is_replayed_from_the_page(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path, browser: WebDriver
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("replay")
    kube.create_pod(ns, "web-1")
    receiver.answer(400)  # the first send is refused for good: a dead letter
    service = _service(control_plane, tmp_path, ns, receiver.url, "--page-writes",
                       state=tmp_path / "state.db")  # fmt: skip
    page = f"http://127.0.0.1:{service.port}/page"
    try:
        _crashloop(kube, ns, "web-1")
        browser.get(f"{page}/delivery")
        wait_reloading(browser, lambda d: _shown(d, "#dead-letters", f"Pod/{ns}/web-1"), 20)
        assert _shown(browser, "#failures", "http_400", f"Pod/{ns}/web-1")
        browser.find_element(By.CSS_SELECTOR, "form[action$='/replay'] button").click()
        WebDriverWait(browser, 5).until(alert_is_present()).accept()
        WebDriverWait(browser, 20).until(lambda d: _shown(d, "#notice", "sent 1, left 0"))
        assert "No dead letters" in text_of(browser, "#dead-letters")
        browser.get(f"{page}/now?namespace={ns}")
        replayed = re.compile(r"hook: delivered by a replay at \S+ \S+Z \(dead-lettered after")
        assert replayed.search(text_of(browser, "#firing")), text_of(browser, "#firing")
        browser.get(f"{page}/why?q=web-1")
        assert replayed.search(text_of(browser, "#decisions")), text_of(browser, "#decisions")
    finally:
        assert service.stop() == 0, service.output()
    assert [r.status for r in receiver.received()] == [400, 200]


def test_what_a_send_resolved_rule_told_shows_under_now_after_a_restart(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path, browser: WebDriver
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("restart")
    kube.create_pod(ns, "web-1")
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG.format(ns=ns, url=receiver.url) + "    send_resolved: true\n")
    state = tmp_path / "state.db"
    first = ServiceProcess(config, control_plane.kubeconfig, state).start()
    first.wait_ready()
    _crashloop(kube, ns, "web-1")
    receiver.wait_for_count(1, timeout=20)
    assert first.stop() == 0, first.output()
    second = ServiceProcess(config, control_plane.kubeconfig, state).start()
    try:
        second.wait_ready()
        browser.get(f"http://127.0.0.1:{second.port}/page/now?namespace={ns}")
        assert _shown(browser, "#firing", "web-1", "CrashLoopBackOff", "before a restart")
    finally:
        assert second.stop() == 0, second.output()


def _post(url: str, port: int) -> int:
    """A same-origin POST carrying a cookie and its token: refused all the same when read-only."""
    request = urllib.request.Request(url, data=b"match=name%3D*&csrf=t&author=x", method="POST")
    request.add_header("Origin", f"http://127.0.0.1:{port}")
    request.add_header("Cookie", "kn_csrf=t")
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as err:
        return int(err.code)
