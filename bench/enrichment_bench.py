"""What context enrichment adds to a notification: delay, and API requests.

Against the real control plane (tier 2: kwok nodes serve container logs), the
service runs two rules on the same crash loops: ``enriched`` (``enrich: [logs,
events, owners]``, to webhook path /enriched, ``continue: true``) and ``plain``
(the same match, to /plain). Both notifications of one Pod come from the same
transition at the same moment, so the gap between their arrivals is the delay
enrichment added. ``--pods`` Pods of one Deployment are made to crash-loop,
``--rate`` a second (kwok's crash-loop stage, a 20-line previous log), with
a Warning Event on each. Figures: added delay p50 / p90 / p99 / max, the fetch
time reported in each payload, API requests per enriched notification.

    .venv/bin/python -m bench.enrichment_bench            # 60 Pods, 10 a second
    .venv/bin/python -m bench.enrichment_bench --pods 20  # quicker

Needs the control-plane binaries (``make assets``); everything listens on
127.0.0.1 and is stopped at the end. Writes bench/results/enrichment.json.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import results
from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube
from tests.integration.service import ServiceProcess
from tests.support.webhook_server import ReceivedRequest, WebhookServer

CONFIG = """
watch: {{namespaces: [{ns}], kinds: [Pod]}}
sinks:
  - {{name: enriched, type: webhook, url: "{url}/enriched"}}
  - {{name: plain, type: webhook, url: "{url}/plain"}}
defaults: {{dedup_window: 0s}}
rules:
  - name: enriched
    match: {{kinds: [Pod], to: [CrashLoopBackOff]}}
    sinks: [enriched]
    enrich: [logs, events, owners]
    continue: true
  - name: plain
    match: {{kinds: [Pod], to: [CrashLoopBackOff]}}
    sinks: [plain]
"""
_REQUESTS = re.compile(r"^kube_notifier_enrichment_api_requests_total\{[^}]*\} ([0-9.e+]+)$", re.M)


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _running_pods(kube: Kube, ns: str, count: int, timeout: float = 300) -> list[Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        listed: list[Any] = kube.core.list_namespaced_pod(ns).items
        pods = [p for p in listed if p.status.phase == "Running"]
        if len(pods) >= count:
            return pods[:count]
        time.sleep(0.5)
    raise RuntimeError(f"fewer than {count} Pods ran within {timeout:.0f} s")


def _deployment(replicas: int) -> dict[str, Any]:
    labels = {"app": "crash"}
    container = {"name": "app", "image": "busybox:1.36"}
    template = {"metadata": {"labels": labels}, "spec": {"containers": [container]}}
    spec = {"replicas": replicas, "selector": {"matchLabels": labels}, "template": template}
    return {"metadata": {"name": "crash"}, "spec": spec}


def _event(ns: str, pod: Any) -> dict[str, Any]:
    meta = pod.metadata
    involved = {"kind": "Pod", "namespace": ns, "name": meta.name, "uid": meta.uid}
    return {"metadata": {"name": f"{meta.name}.backoff"}, "involvedObject": involved,
            "type": "Warning", "reason": "BackOff", "message": "Back-off restarting", "count": 3,
            "lastTimestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}  # fmt: skip


def _by_pod(received: list[ReceivedRequest], path: str) -> dict[str, ReceivedRequest]:
    return {r.json()["object"]["name"]: r for r in received if r.path == path}


def run(pods: int, rate: float, work: Path) -> dict[str, Any]:
    plane = ControlPlane()
    plane.start()
    try:
        plane.start_full_tier(nodes=2)
        plane.write_container_log(
            [f"line {n}: work password=p{n}" for n in range(20)], previous=True
        )
        kube = Kube(plane)
        ns = kube.namespace("enrich-bench")
        apps: Any = kube.apps  # the package's models accept plain dicts
        core: Any = kube.core
        apps.create_namespaced_deployment(ns, _deployment(pods))
        running = _running_pods(kube, ns, pods)
        for pod in running:
            core.create_namespaced_event(ns, _event(ns, pod))
        with WebhookServer() as receiver:
            config = work / "config.yaml"
            config.write_text(CONFIG.format(ns=ns, url=receiver.base_url))
            service = ServiceProcess(config, plane.kubeconfig, "none").start()
            try:
                service.wait_ready(60)
                label = {"metadata": {"labels": {"kube-notifier.test/stage": "crashloop"}}}
                for pod in running:
                    kube.core.patch_namespaced_pod(pod.metadata.name, ns, label)
                    time.sleep(1 / rate)  # the pace of the crashes, not a wait for a result
                receiver.wait_for_count(2 * pods, timeout=120)
                metrics = service.get("/metrics")[1]
            finally:
                service.stop()
        return _figures(receiver.received(), metrics, pods, rate)
    finally:
        plane.stop()


def _figures(
    received: list[ReceivedRequest], metrics: str, pods: int, rate: float
) -> dict[str, Any]:
    enriched, plain = _by_pod(received, "/enriched"), _by_pod(received, "/plain")
    added = [(enriched[n].arrived_at - plain[n].arrived_at) * 1000 for n in enriched if n in plain]
    fetched = [float(r.json()["context"]["fetched_ms"]) for r in enriched.values()]
    problems = sum(bool(r.json()["context"]["problems"]) for r in enriched.values())
    requests = sum(float(v) for v in _REQUESTS.findall(metrics))
    return {
        "pods": pods, "rate": rate, "enriched": len(enriched), "plain": len(plain),
        "with_problems": problems,
        "added_ms": {q: round(_quantile(added, p), 1) for q, p in
                     (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("max", 1.0))},
        "fetch_ms": {"p50": _quantile(fetched, 0.5), "p99": _quantile(fetched, 0.99),
                     "mean": round(statistics.fmean(fetched), 1)},
        "api_requests_per_notification": round(requests / max(1, len(enriched)), 2),
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pods", type=int, default=60)
    parser.add_argument("--rate", type=float, default=10.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kn-enrich-bench-") as work:
        figures = run(args.pods, args.rate, Path(work))
    added, fetch = figures["added_ms"], figures["fetch_ms"]
    print(f"crash loops: {figures['pods']} at {figures['rate']:g}/s; "
          f"told {figures['enriched']} enriched, {figures['plain']} plain; "
          f"{figures['with_problems']} with a context problem")  # fmt: skip
    print("| figure | p50 | p90 | p99 | max |\n| --- | ---: | ---: | ---: | ---: |")
    print(f"| delay added by enrichment (ms) | {added['p50']} | {added['p90']} | "
          f"{added['p99']} | {added['max']} |")  # fmt: skip
    print(f"fetch time in the payload (ms): p50 {fetch['p50']:g}, p99 {fetch['p99']:g}")
    print(f"API requests per enriched notification: {figures['api_requests_per_notification']}")
    print(f"written: {results.write('enrichment', figures)}")


if __name__ == "__main__":
    main()
