"""Informers, queue and workers against the real API server: nothing missed, nothing doubled."""

from __future__ import annotations

import itertools
import threading
import time

import pytest
from prometheus_client import REGISTRY

from notifier.objects import EventType, Kind, ObjectKey
from notifier.origin import Origin
from notifier.source.reflector import ReflectorSettings
from notifier.transitions.model import Transition
from tests.controlplane.cluster import ControlPlane
from tests.integration.harness import (
    RecordingStage,
    assert_cache_matches,
    assert_true_history,
    cluster_access,
    pipeline,
)
from tests.integration.kube import Kube, in_parallel
from tests.support.tcp_proxy import TcpProxy
from tests.support.watch_interposer import Mode, WatchInterposer

pytestmark = pytest.mark.integration


def _metric(metric: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(metric, labels) or 0.0


def test_live_add_update_delete_are_seen_once(control_plane: ControlPlane) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace()
    with pipeline(control_plane, namespaces=[ns]) as pipe:
        pipe.wait_synced()
        kube.create_pod(ns, "a")
        kube.label_pod(ns, "a", "1")
        kube.create_pod(ns, "b")
        kube.delete_pod(ns, "b")
        pipe.wait_idle()
        assert_cache_matches(pipe, Kind.POD, ns)
        assert_true_history(pipe, Kind.POD, ns)
        events = [t.event for t in pipe.stage.by_key[(Kind.POD, f"{ns}/b")]]
        # Between the two the delete may show as an update (deletionTimestamp set).
        assert events[0] is EventType.ADDED and events[-1] is EventType.DELETED
        assert all(t.origin is Origin.LIVE for t in pipe.stage.all())


@pytest.mark.timeout(300)
def test_initial_list_is_paged_and_synced_only_after_all(control_plane: ControlPlane) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("paged")
    in_parallel(lambda i: kube.create_pod(ns, f"p{i:04d}"), range(5000))
    lists_before = _metric("kube_notifier_lists_total", kind="Pod")
    stage = RecordingStage()
    with pipeline(control_plane, namespaces=[ns], stage=stage) as pipe:
        informer = pipe.informers[Kind.POD]
        assert informer.wait_synced(120)
        assert len(informer.store) == 5000
        pipe.wait_idle()
        assert _metric("kube_notifier_lists_total", kind="Pod") == lists_before + 1
        initial = [t for t in stage.all() if t.origin is Origin.INITIAL_LIST]
        assert len(initial) == 5000
        # With the full tier up, kwok moves the pods along: those changes come live.
        assert {t.origin for t in stage.all()} <= {Origin.INITIAL_LIST, Origin.LIVE}
        assert_cache_matches(pipe, Kind.POD, ns)


def test_relist_after_compaction_diffs_against_cache(control_plane: ControlPlane) -> None:
    """Disconnected, then 410 on resume: deleted -> one delete, changed -> one update,
    unchanged -> nothing, deleted and re-created -> a delete and an add."""
    kube = Kube(control_plane)
    ns = kube.namespace("gone")
    for i in range(8):
        kube.create_pod(ns, f"p{i}")
    proxy = TcpProxy(control_plane.apiserver_port)
    relists = _metric("kube_notifier_relists_total", kind="Pod")
    settings = ReflectorSettings(backoff_initial=0.2, backoff_cap=1.0)
    try:
        with pipeline(control_plane, namespaces=[ns], port=proxy.port, settings=settings) as pipe:
            pipe.wait_synced()
            pipe.wait_idle()
            baseline = len(pipe.stage.all())
            proxy.cut()
            kube.delete_pod(ns, "p0")
            kube.label_pod(ns, "p1", "changed")
            kube.delete_pod(ns, "p2")
            kube.create_pod(ns, "p2")
            # A restarted API server's watch cache starts at the current revision, and
            # compaction removes the history: resuming from the old revision is 410 Gone.
            control_plane.restart_apiserver()
            control_plane.compact_etcd()
            proxy.restore()
            deadline = time.monotonic() + 60
            while _metric("kube_notifier_relists_total", kind="Pod") == relists:
                assert time.monotonic() < deadline, "no relist happened"
                time.sleep(0.2)
            pipe.wait_idle()
            after = pipe.stage.all()[baseline:]
            seen = sorted((t.key.split("/")[1], t.event.value, t.origin.value) for t in after)
            assert seen == [
                ("p0", "deleted", "relist"),
                ("p1", "updated", "relist"),
                ("p2", "added", "relist"),
                ("p2", "deleted", "relist"),
            ]
            assert_cache_matches(pipe, Kind.POD, ns)
            assert_true_history(pipe, Kind.POD, ns)
    finally:
        proxy.close()


def test_stalled_connection_reopens_watch_without_relist(control_plane: ControlPlane) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("stall")
    proxy = TcpProxy(control_plane.apiserver_port)
    settings = ReflectorSettings(inactivity_timeout=2.0)
    try:
        with pipeline(control_plane, namespaces=[ns], port=proxy.port, settings=settings) as pipe:
            pipe.wait_synced()
            relists = _metric("kube_notifier_relists_total", kind="Pod")
            stalls = _metric("kube_notifier_watch_restarts_total", kind="Pod", reason="stalled")
            proxy.stall()
            kube.create_pod(ns, "during-stall")
            deadline = time.monotonic() + 30
            while (
                _metric("kube_notifier_watch_restarts_total", kind="Pod", reason="stalled")
                == stalls
            ):
                assert time.monotonic() < deadline, "watchdog never fired"
                time.sleep(0.2)
            kube.create_pod(ns, "after-stall")
            pipe.wait_idle()
            assert _metric("kube_notifier_relists_total", kind="Pod") == relists
            names = {t.key for t in pipe.stage.all()}
            assert {f"{ns}/during-stall", f"{ns}/after-stall"} <= names
            assert_true_history(pipe, Kind.POD, ns)
    finally:
        proxy.close()


def test_apiserver_restart_during_churn_loses_nothing(control_plane: ControlPlane) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("restart")
    names = [f"p{i}" for i in range(20)]
    in_parallel(lambda n: kube.create_pod(ns, n), names)
    settings = ReflectorSettings(backoff_initial=0.2, backoff_cap=1.0)
    with pipeline(control_plane, namespaces=[ns], settings=settings) as pipe:
        pipe.wait_synced()
        in_parallel(lambda n: kube.label_pod(ns, n, "before"), names)
        control_plane.restart_apiserver()
        in_parallel(lambda n: kube.label_pod(ns, n, "after"), names[:10])
        in_parallel(lambda n: kube.delete_pod(ns, n), names[10:15])
        in_parallel(lambda n: kube.create_pod(ns, n), ["new1", "new2"])
        deadline = time.monotonic() + 60
        while len(pipe.informers[Kind.POD].store.snapshot()) != 17:
            assert time.monotonic() < deadline, "cache never caught up"
            time.sleep(0.2)
        pipe.wait_idle()
        assert_cache_matches(pipe, Kind.POD, ns)
        assert_true_history(pipe, Kind.POD, ns)


@pytest.mark.timeout(300)
def test_many_updates_few_keys_slow_workers(control_plane: ControlPlane) -> None:
    """10,000 updates over 100 keys while the workers are held: collapsed into about one
    pass per key, never two workers on one key, and the final state right."""
    kube = Kube(control_plane)
    ns = kube.namespace("burst")
    names = [f"p{i:03d}" for i in range(100)]
    in_parallel(lambda n: kube.create_pod(ns, n), names)
    held = threading.Event()
    stage = RecordingStage(gate=held, delay=0.01)
    with pipeline(control_plane, namespaces=[ns], stage=stage, workers=4) as pipe:
        pipe.wait_synced()
        held.set()
        pipe.wait_idle()
        held.clear()  # from now on the workers are as slow as we like
        calls_before = stage.calls
        in_parallel(lambda i: kube.label_pod(ns, names[i % 100], str(i)), range(10_000), threads=32)
        held.set()
        pipe.wait_idle(timeout=120, quiet=2.0)
        passes = stage.calls - calls_before
        assert stage.overlaps == 0
        # 4 passes were held mid-flight; every key then comes once more, a few twice.
        assert passes <= 300, f"{passes} passes for 10,000 updates"
        assert_cache_matches(pipe, Kind.POD, ns)
        assert_true_history(pipe, Kind.POD, ns)


def test_failing_key_is_retried_with_growing_delays_then_dropped(
    control_plane: ControlPlane,
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("fail")
    attempts: list[float] = []

    def fail(transitions: list[Transition]) -> bool:
        attempts.append(time.monotonic())
        return True

    stage = RecordingStage(fail=fail)
    drops = _metric("kube_notifier_workqueue_drops_total", name="failing")
    with pipeline(
        control_plane, namespaces=[ns], stage=stage, max_retries=5, queue_name="failing"
    ) as pipe:
        pipe.wait_synced()
        kube.create_pod(ns, "doomed")
        deadline = time.monotonic() + 30
        while _metric("kube_notifier_workqueue_drops_total", name="failing") == drops:
            assert time.monotonic() < deadline, "never dropped"
            time.sleep(0.05)
    assert len(attempts) == 6  # the first try and 5 retries
    gaps = [b - a for a, b in itertools.pairwise(attempts)]
    assert gaps[-1] > gaps[0] and gaps[-1] >= 0.08  # 5 ms doubling: 80 ms before the last


def test_shutdown_drains_work_in_flight(control_plane: ControlPlane) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("drain")
    stage = RecordingStage(delay=0.3)
    with pipeline(control_plane, namespaces=[ns], stage=stage, workers=2) as pipe:
        pipe.wait_synced()
        in_parallel(lambda n: kube.create_pod(ns, n), ["a", "b", "c", "d"])
        deadline = time.monotonic() + 30
        while stage.calls == 0 or len(pipe.informers[Kind.POD].store) < 4:
            assert time.monotonic() < deadline, "the pods never reached the queue"
            time.sleep(0.01)
        pipe.informers[Kind.POD].stop()
        assert pipe.workers.stop(deadline=10)
        assert {t.key for t in stage.all()} == {f"{ns}/{n}" for n in "abcd"}


def test_services_and_deployments_are_watched_too(control_plane: ControlPlane) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("kinds")
    with pipeline(control_plane, kinds=(Kind.SERVICE, Kind.DEPLOYMENT), namespaces=[ns]) as pipe:
        pipe.wait_synced()
        kube.core.create_namespaced_service(
            ns,
            {
                "metadata": {"name": "web"},
                "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "name": "http"}]},
            },
        )
        web = ObjectKey(f"{ns}/web")  # both kinds' object; each change waits for the last to land
        pipe.stage.wait_seen(Kind.SERVICE, web)
        kube.core.patch_namespaced_service(
            "web",
            ns,
            {"spec": {"ports": [{"port": 80, "name": "http"}, {"port": 443, "name": "tls"}]}},
        )
        kube.apps.create_namespaced_deployment(
            ns,
            {
                "metadata": {"name": "web"},
                "spec": {
                    "replicas": 1,
                    "selector": {"matchLabels": {"app": "web"}},
                    "template": {
                        "metadata": {"labels": {"app": "web"}},
                        "spec": {"containers": [{"name": "web", "image": "nginx:1"}]},
                    },
                },
            },
        )
        pipe.stage.wait_seen(Kind.DEPLOYMENT, web)
        kube.apps.patch_namespaced_deployment("web", ns, {"spec": {"replicas": 3}})
        pipe.stage.wait_seen(Kind.SERVICE, web, count=2)
        kube.core.delete_namespaced_service("web", ns)
        pipe.wait_idle()
        for kind in (Kind.SERVICE, Kind.DEPLOYMENT):
            assert_cache_matches(pipe, kind, ns)
            assert_true_history(pipe, kind, ns)
        service = [
            (t.event.value, sorted(t.signals))
            for t in pipe.stage.by_key[(Kind.SERVICE, f"{ns}/web")]
        ]
        assert service[0] == ("added", ["Created"]) and service[-1] == ("deleted", ["Deleted"])
        assert ("updated", ["PortsChanged"]) in service
        scaled = [
            t for t in pipe.stage.by_key[(Kind.DEPLOYMENT, f"{ns}/web")] if "Scaled" in t.signals
        ]
        assert len(scaled) == 1


@pytest.mark.timeout(60)
@pytest.mark.parametrize("mode", ["empty", "gone"])
def test_a_watch_that_fails_at_once_backs_off_and_says_so(
    control_plane: ControlPlane, mode: Mode
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("spin")
    kube.create_pod(ns, "p0")
    access = cluster_access(control_plane)
    stand_in = WatchInterposer(access.server, access.api.rest_client.pool_manager, mode)
    try:
        with pipeline(control_plane, namespaces=[ns], server=stand_in.url) as pipe:
            informer = pipe.informers[Kind.POD]
            started = time.monotonic()
            deadline = started + 30
            while not informer.watch_failing():
                assert time.monotonic() < deadline, "readiness never said the watch is failing"
                time.sleep(0.05)
            took = time.monotonic() - started
            asked = stand_in.watches if mode == "empty" else stand_in.lists
    finally:
        stand_in.close()
    # Three failures in a row, with backoff between them (0.8 s then 1.6 s at least, less
    # jitter): a spin would have made hundreds of requests in that time.
    assert took >= 1.5, f"failing after {took:.1f}s"
    assert asked <= 5, f"{asked} {'watches' if mode == 'empty' else 'lists'} in {took:.1f}s"
