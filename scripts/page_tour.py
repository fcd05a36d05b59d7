"""``python -m scripts.page_tour``: the page with something on it; screenshots and figures.

Starts etcd and kube-apiserver on 127.0.0.1, two webhook receivers (one
refuses everything with 400, so there are failures and dead letters),
``--decisions`` Pods for the service's initial list (one decision each), then
kube-notifier with its page writable; plays crash loops, an image pull that
fails (a ``for:`` rule times it), crash loops a ``group_by`` rule holds for
its digest, a silence and a Pod whose status holds markup; then

- ``--shots DIR``: a PNG of each view, taken in headless Chromium;
- always: each view's response time (median and worst of ``--requests``) and
  the service's RSS before the page was opened and after.

Every process it started is stopped at the end.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

from notifier.cli import main as cli
from tests.controlplane.cluster import ControlPlane
from tests.integration.browser import chromium, wait_reloading
from tests.integration.kube import Kube, in_parallel
from tests.integration.service import ServiceProcess
from tests.support.webhook_server import WebhookServer

CONFIG = """
watch:
  namespaces: [payments, web, load]
  kinds: [Pod]
sinks:
  - {{name: team-hook, type: webhook, url: "{ok}"}}
  - {{name: pager, type: webhook, url: "{bad}"}}
rules:
  - name: crashloops
    match: {{kinds: [Pod], to: [CrashLoopBackOff]}}
    sinks: [team-hook, pager]
    continue: true
  - name: crash-digest
    match: {{kinds: [Pod], to: [CrashLoopBackOff]}}
    sinks: [team-hook]
    group_by: [namespace]
    group_wait: 10m
  - name: image-pulls
    match: {{kinds: [Pod], to: [ImagePullBackOff]}}
    sinks: [team-hook]
    continue: true
  - name: image-pull-stuck
    match: {{kinds: [Pod], to: [ImagePullBackOff], for: 15m}}
    sinks: [pager]
"""
HOSTILE = '<img src=x onerror="alert(1)">'
VIEWS = {
    "now": "/page/now",
    "why": "/page/why",
    "silences": "/page/silences?match=namespace%3Dpayments%2Cname%3Dapi-*",
    "delivery": "/page/delivery",
}
TIMED = (
    "/page/now",
    "/page/why",
    "/page/why?page=199",
    "/page/why?q=load%2Fpod-09999",
    "/page/silences",
    "/page/delivery",
)


RECOVERED = {"phase": "Running", "containerStatuses": [{"name": "main", "image": "busybox:1.36",
             "imageID": "", "ready": True, "restartCount": 4,
             "state": {"running": {"startedAt": "2026-11-25T16:00:00Z"}}}]}  # fmt: skip


def waiting(reason: str, restarts: int = 3) -> dict[str, object]:
    state = {"waiting": {"reason": reason, "message": "back-off 40s restarting failed container"}}
    return {"phase": "Running", "containerStatuses": [{"name": "main", "image": "busybox:1.36",
            "imageID": "", "ready": False, "restartCount": restarts, "state": state}]}  # fmt: skip


def play(kube: Kube, service: ServiceProcess, where: str, kubeconfig: Path) -> None:
    base = f"http://127.0.0.1:{service.port}"
    pods = {
        "payments": ["api-7f9c-x1", "api-7f9c-x2", "worker-5d1-a", "ledger-0"],
        "web": ["frontend-1", "frontend-2", "notes-0"],
    }
    for ns, names in pods.items():
        for name in names:
            kube.create_pod(ns, name)
    wait_for(lambda: decisions_kept(base, "payments/") + decisions_kept(base, "web/") >= 7, 60,
             "the new Pods' decisions")  # fmt: skip
    for ns, name in (("payments", "api-7f9c-x1"), ("payments", "ledger-0"), ("web", "frontend-1")):
        kube.core.patch_namespaced_pod_status(name, ns, {"status": waiting("CrashLoopBackOff")})
    kube.core.patch_namespaced_pod_status("frontend-2", "web",
                                          {"status": waiting("ImagePullBackOff", 0)})  # fmt: skip
    cli(["silence", "add", "--config-map", where, "--kubeconfig", str(kubeconfig), "--match",
         "namespace=payments,name=worker-*", "--for", "2h", "--comment", "migrating the queue",
         "--author", "ana"])  # fmt: skip
    service.wait_for_output(lambda out: "1 silences, 1 active" in out, 30)
    kube.core.patch_namespaced_pod_status("worker-5d1-a", "payments",
                                          {"status": waiting("CrashLoopBackOff")})  # fmt: skip
    hostile = {"status": {"phase": "Running", "reason": HOSTILE}}
    kube.core.patch_namespaced_pod_status("notes-0", "web", hostile)
    kube.core.patch_namespaced_pod_status("ledger-0", "payments", {"status": RECOVERED})


def shots(base: str, directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    with chromium(width=1280, height=900) as driver:
        driver.get(base + VIEWS["now"])
        wait_reloading(driver, lambda d: all(word in d.page_source for word in (
            "frontend-2", "image-pull-stuck", "crash-digest")), 30)  # fmt: skip
        for name, path in VIEWS.items():
            driver.get(base + path)
            driver.save_screenshot(str(directory / f"page-{name}.png"))
            print(f"wrote {directory / f'page-{name}.png'}")


def timed(base: str, path: str, requests: int) -> tuple[float, float, int]:
    spent = []
    size = 0
    for _ in range(requests):
        started = time.perf_counter()
        with urllib.request.urlopen(base + path, timeout=30) as answer:
            size = len(answer.read())
        spent.append(time.perf_counter() - started)
    return statistics.median(spent) * 1000, max(spent) * 1000, size


def rss_mib(pid: int) -> tuple[float, float]:
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def wait_for(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.5)


def decisions_kept(base: str, about: str = "") -> int:
    query = urllib.parse.urlencode({"q": about})
    with urllib.request.urlopen(f"{base}/page/why?{query}", timeout=30) as answer:
        text = answer.read().decode()
    count = text.split('<span class="count">', 1)[1].split("</span>", 1)[0]
    return int(count.rsplit(" of ", 1)[1]) if " of " in count else 0


def tour(args: argparse.Namespace) -> None:
    plane, ok, bad = ControlPlane(), WebhookServer().start(), WebhookServer().start()
    bad.answer(400, times=None)
    service: ServiceProcess | None = None
    try:
        plane.start()
        kube = Kube(plane)
        for ns in ("payments", "web", "load"):
            kube.core.create_namespace({"metadata": {"name": ns}})
        in_parallel(lambda i: kube.create_pod("load", f"pod-{i:05d}"), range(args.decisions))
        work = Path(tempfile.mkdtemp(prefix="kn-page-"))
        (work / "config.yaml").write_text(CONFIG.format(ok=ok.url, bad=bad.url))
        where = "payments/kube-notifier-silences"
        service = ServiceProcess(work / "config.yaml", plane.kubeconfig, work / "state.db",
                                 extra=["--silences", where, "--page-writes"]).start()  # fmt: skip
        service.wait_ready(timeout=300)
        base = f"http://127.0.0.1:{service.port}"
        wait_for(
            lambda: decisions_kept(base) >= args.decisions, 300, "the initial list's decisions"
        )
        assert service.proc is not None
        before = rss_mib(service.proc.pid)
        play(kube, service, where, plane.kubeconfig)
        if args.shots:
            shots(base, Path(args.shots))
        print(f"decisions kept: {decisions_kept(base)}; Pods watched: {args.decisions + 7}")
        print(f"{'path':32} {'median ms':>10} {'worst ms':>9} {'bytes':>8}")
        for path in TIMED:
            median, worst, size = timed(base, path, args.requests)
            print(f"{path:32} {median:10.1f} {worst:9.1f} {size:8}")
        after = rss_mib(service.proc.pid)
        print(f"service RSS before the page: {before[0]:.1f} MiB (peak {before[1]:.1f})")
        print(f"service RSS after the tour and {len(TIMED) * args.requests} page requests: "
              f"{after[0]:.1f} MiB (peak {after[1]:.1f})")  # fmt: skip
    finally:
        if service is not None:
            service.stop()
        ok.stop()
        bad.stop()
        plane.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=10_000, help="Pods in the initial list")
    parser.add_argument("--requests", type=int, default=20, help="requests timed per view")
    parser.add_argument("--shots", default="", help="write page-<view>.png here")
    tour(parser.parse_args())


if __name__ == "__main__":
    main()
