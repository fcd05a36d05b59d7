"""The running service: every part built and wired (``Service``), started in order, stopped in
reverse on SIGTERM. ``service/running.py`` makes one from the options and runs it."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from notifier import build_info  # noqa: F401 - registers build info
from notifier.api.board import FiringBoard
from notifier.api.decision_log import DecisionLog
from notifier.delivery.building import build_delivery
from notifier.delivery.credentials import CredentialChecks
from notifier.dispatch.stage import RoutingStage, Ticker, both
from notifier.enrichment.wiring import build_enricher, enrichment_stager
from notifier.kinds.registry import Kinds
from notifier.leadership.electing import ElectionSettings, LeaderElector
from notifier.leadership.gate import LeaderGate
from notifier.leadership.lease import KubeLeaseClient
from notifier.objects import Kind
from notifier.queue.rate_limiting_queue import RateLimitingQueue
from notifier.reload.configmap import ConfigMapReloader
from notifier.reload.holder import RulesHolder
from notifier.reload.namespace_watch import NamespaceWatch
from notifier.reload.polling import FileReloader
from notifier.reload.sinks import sink_stager
from notifier.reload.watch_changes import WatchChanges
from notifier.rules.engine import RulesEngine
from notifier.service import health
from notifier.service.options import RunOptions
from notifier.service.page import PageSources, page_parts, rule_targets, told_before
from notifier.service.signals import StopSignals
from notifier.silences.book import SilenceBook
from notifier.silences.watching import SilenceWatch
from notifier.sinks.alertmanager.open_alerts import MemoryAlerts
from notifier.sinks.thread_roots import MemoryThreads, ThreadStore
from notifier.source.client import RawClient
from notifier.source.configmaps import WatchedConfigMap
from notifier.source.informer import Informer
from notifier.source.informer_set import InformerSet
from notifier.source.reflector import ReflectorSettings
from notifier.state import StateStore
from notifier.state.firing import DurableFirings
from notifier.state.folded_ends import DurableFoldedEnds
from notifier.state.held import DurableHolding
from notifier.state.known_objects import DurableSeen, log_baseline
from notifier.state.timers import DurableTimers
from notifier.supervision import supervised
from notifier.workers.intake import Intake
from notifier.workers.keys import WorkKey
from notifier.workers.known import Known
from notifier.workers.settling import Settling
from notifier.workers.worker import Workers

if TYPE_CHECKING:
    from notifier.api.page.views import HealthView, PageParts
    from notifier.api.server import HttpServer


log = logging.getLogger("notifier.service")


class Service:
    def __init__(
        self, opts: RunOptions, holder: RulesHolder, raw: RawClient, state: StateStore | None
    ) -> None:
        self.opts, self.holder, self.state, self.raw = opts, holder, state, raw
        self.signals = StopSignals()
        config = holder.current.config
        threads: ThreadStore = state.threads if state is not None else MemoryThreads()
        outbox = state.outbox if state is not None else None
        alerts = state.alerts if state is not None else MemoryAlerts()
        self.delivery = build_delivery(config.sinks, outbox=outbox, threads=threads, alerts=alerts)
        self.credentials = CredentialChecks()
        self.gate = LeaderGate(
            self.delivery.submit, window=opts.standby_window, leading=not opts.leader_elect
        )
        self.namespaces = NamespaceWatch(raw)
        self.enricher = build_enricher(raw, config, holder.current.kinds)
        self.delivery.enrich_with(self.enricher)
        kinds = holder.current.kinds
        holding = DurableHolding(state.held, kinds=kinds) if state is not None else None
        firings = DurableFirings(state.firing, kinds) if state is not None else None
        timers = DurableTimers(state.timers, kinds=kinds) if state is not None else None
        ends = DurableFoldedEnds(state.folded_ends, kinds) if state is not None else None
        self.silences = SilenceBook()
        self.engine = RulesEngine(
            holder.ruleset,
            namespace_labels=self.namespaces,
            holding=holding,
            firings=firings,
            silences=self.silences,
            timers=timers,
            stays=state.stays if state is not None else None,
            folded_ends=ends,
        )
        self.ticker = Ticker(self.engine, self.gate.submit)
        self.decisions = DecisionLog()  # always kept, bounded: the page's "Why not"
        self.board = FiringBoard(rule_targets(holder))
        if firings is not None:
            self.board.seed(told_before(firings))
        self._build_pipeline(raw)
        watch_changes = WatchChanges(
            raw, self.informers, self.known, self._informer, self.settling.settle_started
        )
        holder.stage_with(
            sink_stager(self.delivery, threads, alerts),
            self.namespaces.stage,
            enrichment_stager(self.enricher, raw),
            watch_changes.stage,
        )
        self._build_reloaders(raw)
        self.elector = self._build_elector(raw) if opts.leader_elect else None
        self._election_stop = threading.Event()
        self._election = threading.Thread(
            target=supervised("leader-election", self.elector.run if self.elector else _ignore),
            args=(self._election_stop,),
            name="leader-election",
            daemon=True,
        )
        self.http: HttpServer | None = None  # built in serve(), once the informers list

    def _build_pipeline(self, raw: RawClient) -> None:
        config = self.holder.current.config
        self.queue: RateLimitingQueue[WorkKey] = RateLimitingQueue("objects")
        kinds = self.holder.current.kinds
        seen = (
            DurableSeen(self.state.seen, config.watch.watched(), known=kinds)
            if self.state
            else None
        )
        self.known = Known(seen)
        log_baseline(self.known, with_state=self.state is not None)
        self.intake = Intake(self.queue, self.known)
        self.settling = Settling(
            intake=self.intake,
            known=self.known,
            commit=self._commit,
            stop=self.signals.stop,
            caught_up=self.engine.caught_up,
        )
        self.informers = InformerSet(
            [
                self._informer(kind, kinds, config.watch.namespaces)
                for kind in config.watch.watched()
            ]
        )
        observe = both(self.decisions.record, self.board.record)
        self.workers = Workers(
            queue=self.queue,
            intake=self.intake,
            known=self.known,
            stores=self.informers.stores,
            sink=RoutingStage(self.engine, self.gate.submit, observe),
            count=config.watch.workers,
            commits=self.state.writer if self.state else None,
        )

    def _informer(self, kind: Kind, kinds: Kinds, namespaces: Sequence[str]) -> Informer:
        return Informer(
            kind,
            client=self.raw,
            handler=self.intake,
            namespaces=namespaces,
            settings=ReflectorSettings(inactivity_timeout=self.opts.watchdog_seconds),
            resync_seconds=self.holder.current.config.watch.resync_seconds,
            saved=self.known.saved(kind),
            on_relisted=self.settling.relisted,
            kinds=kinds,
        )

    def _build_reloaders(self, raw: RawClient) -> None:
        opts, holder = self.opts, self.holder
        settings = ReflectorSettings(inactivity_timeout=opts.watchdog_seconds)
        self.reloaders: list[FileReloader | ConfigMapReloader | SilenceWatch] = [
            FileReloader(holder, opts.config)
        ]
        self.watched_config_maps: list[WatchedConfigMap] = []
        if opts.config_map is not None:
            namespace, name = opts.config_map
            reloader = ConfigMapReloader(
                raw, holder, namespace, name, reporter=opts.identity, settings=settings
            )
            self.reloaders.append(reloader)
            self.watched_config_maps.append(reloader.watch)
        if opts.silences is not None:
            namespace, name = opts.silences
            silences = SilenceWatch(raw, self.silences, namespace, name, settings=settings)
            self.reloaders.append(silences)
            self.watched_config_maps.append(silences.watch)

    def _build_elector(self, raw: RawClient) -> LeaderElector:
        opts = self.opts
        lease = KubeLeaseClient(raw.sibling(), opts.lease_namespace, opts.lease_name)
        settings = ElectionSettings(
            identity=opts.identity,
            lease_duration=opts.lease_duration,
            renew_deadline=opts.lease_duration * 2 / 3,
            retry_period=max(0.5, opts.lease_duration / 7.5),
        )
        return LeaderElector(
            lease, settings, on_started=self.gate.lead, on_stopped=self.gate.stand_by
        )

    def _build_http(self) -> HttpServer:
        from notifier.api.app import create_app  # noqa: PLC0415 - see the module docstring
        from notifier.api.readiness import Readiness  # noqa: PLC0415
        from notifier.api.server import HttpServer  # noqa: PLC0415

        parts = health.Parts(
            self.holder,
            self.informers,
            self.workers,
            self.delivery,
            self.opts.stale_after_seconds,
            self.opts.wedged_after_seconds,
            self.signals.stop.is_set,
            namespaces_watched=lambda: self.namespaces.watching,
            namespaces_listed=self.namespaces.listed,
            namespaces_failing=self.namespaces.failing,
            config_maps=self.watched_config_maps,
            state_alive=lambda: self.state is None or self.state.healthy,
            credentials_refused=self.credentials.refused,
            ticker_alive=lambda: self.ticker.alive,
        )
        readiness = Readiness(lambda: health.readiness(parts))  # /readyz and the page's banner
        app = create_app(
            liveness=lambda: health.liveness(parts),
            readiness=readiness,
            decisions=self.decisions if self.opts.debug_decisions else None,
            page=self._page(readiness) if self.opts.page else None,
        )
        return HttpServer(app, host=self.opts.listen_host, port=self.opts.listen_port)

    def _page(self, readiness: HealthView) -> PageParts:
        sources = PageSources(
            self.board, self.engine, self.decisions, self.silences, self.delivery, self.state,
            self.holder, self.raw.sibling(), self.opts.silences, readiness,
        )  # fmt: skip
        return page_parts(sources, writes=self.opts.page_writes)

    def serve(self) -> int:
        self.signals.install()
        self.delivery.start()
        self.credentials.run(self.delivery.sinks())
        self.ticker.restore()
        self.workers.start()
        self.ticker.start()
        if self.holder.current.config.uses_namespace_labels():
            self.namespaces.start()
        self.informers.start()
        self.http = self._build_http()
        self.http.start()
        for reloader in self.reloaders:
            reloader.start()
        if self.elector is not None:
            self._election.start()
        log.info("kube-notifier started; HTTP on %s:%d", self.opts.listen_host, self.http.port)
        after_sync = supervised("after-sync", self.settling.run)
        threading.Thread(
            target=after_sync, args=(list(self.informers),), name="after-sync", daemon=True
        ).start()
        self.signals.wait()
        return self._shutdown()

    def _commit(self, timeout: float) -> bool:
        """Wait until the state writes submitted so far are committed (if there is state);
        False if ``timeout`` passed first."""
        return self.state is None or self.state.flush(timeout)

    def _shutdown(self) -> int:
        deadline = time.monotonic() + self.opts.shutdown_deadline
        self.settling.wake()
        for reloader in self.reloaders:
            reloader.stop()
        self.informers.stop()
        self.namespaces.stop()
        drained = self.workers.stop(max(0.0, deadline - time.monotonic()))
        self.ticker.stop(release_all=True)
        if self.state is not None:
            # What the ticker just released reaches its sink's queue once committed:
            # commit it now, so delivery drains it instead of leaving it for next time.
            self.state.flush(max(0.0, deadline - time.monotonic()))
        if self.elector is not None:
            self._election_stop.set()  # the elector releases the Lease for a fast takeover
            self._election.join(5)
        delivered = self.delivery.stop(deadline)
        self.enricher.stop()
        if self.state is not None:
            self.state.close()
        if self.http is not None:
            self.http.stop()
        log.info("stopped (workers drained: %s, deliveries drained: %s)", drained, delivered)
        return 0


def _ignore(*_: object) -> None:
    return None
