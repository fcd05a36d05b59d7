"""``ContextFetcher``: the API requests behind one ``ContextRequest``, within its deadline.

Each request waits for a token of the shared bucket (``requests_per_second``,
``burst``) and gets only the time left; what cannot be had (refused, gone,
too slow) becomes a ``problem`` the message shows, never an exception.
Parts: the containers' logs (``pods/log``, the last ``log_lines``, at most
``log_bytes``, redacted), the object's Warning Events (newest first), and its
owners, followed up through ``ownerReferences`` (one GET per owner whose own
owner is wanted), and what changed before the trouble (``finding``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import msgspec
import urllib3

from notifier.enrichment.access import NEEDS
from notifier.enrichment.changes import Changes
from notifier.enrichment.config import EnrichmentConfig
from notifier.enrichment.context import ContainerLog, Context, WarningEvent
from notifier.enrichment.failures import FetchError
from notifier.enrichment.finding import ChangeFinder
from notifier.enrichment.metrics import API_REQUESTS
from notifier.enrichment.owners import OwnerMemory, owner_path
from notifier.enrichment.reading import EventList, OwnedObject, last_lines, newest_warnings
from notifier.enrichment.redaction import Redactor
from notifier.kinds.registry import Kinds
from notifier.notifications import ContextRequest
from notifier.queue.rate_limiters import TokenBucket
from notifier.source.client import ApiError, RawClient

_MAX_RESPONSE = 1 << 20  # an event list or an owner: far more than either needs
_LOG_READ_FACTOR = 16  # read this much more log than kept, so the kept part is the end
_STATUS_PROBLEMS = {401: "unauthorized", 403: "forbidden", 404: "not found"}


@dataclass
class _Budget:
    deadline: float
    clock: Callable[[], float]

    def left(self) -> float:
        return self.deadline - self.clock()


class ContextFetcher:
    def __init__(
        self,
        client: RawClient,
        settings: EnrichmentConfig,
        *,
        bucket: TokenBucket,
        kinds: Kinds,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self._client = client
        self._settings = settings
        self._redact = Redactor.build(
            ((r.pattern, r.replacement) for r in settings.redact),
            defaults=settings.default_redactions,
        )
        self._bucket = bucket
        self._kinds = kinds
        self._clock = clock
        self._owners_seen = OwnerMemory(clock)
        self._changes = ChangeFinder(settings.changes, self._redact, clock=wall)

    def fetch(self, request: ContextRequest, deadline: float) -> Context:
        started = self._clock()
        budget = _Budget(deadline, self._clock)
        logs: list[ContainerLog] = []
        events: tuple[WarningEvent, ...] = ()
        owners: tuple[str, ...] = ()
        problems: list[str] = []
        changes: Changes | None = None
        for part in request.parts:
            try:
                if part == "logs":
                    logs.extend(self._logs(request, budget, problems))
                elif part == "events":
                    events = self._events(request, budget)
                elif part == "changes":
                    changes = self._changes.find(request, partial(self._get, part, budget=budget))
                else:
                    owners = self._owners(request, budget, problems)
            except FetchError as problem:
                problems.append(f"{part}: {problem}")
        elapsed = int((self._clock() - started) * 1000)
        return Context(tuple(logs), events, owners, tuple(problems), elapsed, changes)

    def _logs(
        self, request: ContextRequest, budget: _Budget, problems: list[str]
    ) -> list[ContainerLog]:
        found = []  # none asked: not a Pod, or no container in trouble; nothing to say
        for container, previous in request.logs:
            try:
                found.append(self._log(request, container, previous, budget))
            except FetchError as problem:
                which = "previous log" if previous else "log"
                problems.append(f"logs: {which} of {container}: {problem}")
        return found

    def _log(
        self, request: ContextRequest, container: str, previous: bool, budget: _Budget
    ) -> ContainerLog:
        settings = self._settings
        path = f"/api/v1/namespaces/{request.namespace}/pods/{request.name}/log"
        query = {
            "container": container,
            "previous": "true" if previous else "false",
            "tailLines": str(settings.log_lines),
            "limitBytes": str(settings.log_bytes * _LOG_READ_FACTOR),
        }
        raw = self._get("logs", path, query, settings.log_bytes * _LOG_READ_FACTOR, budget=budget)
        lines, truncated = last_lines(raw, settings.log_lines, settings.log_bytes, self._redact)
        return ContainerLog(container, previous, lines, truncated)

    def _events(self, request: ContextRequest, budget: _Budget) -> tuple[WarningEvent, ...]:
        # A Node's events name it by its name in involvedObject.uid, not by its uid.
        where = f"involvedObject.uid={request.uid}" if request.uid and request.namespace else (
            f"involvedObject.kind={request.kind},involvedObject.name={request.name}"
        )  # fmt: skip
        path = f"/api/v1/namespaces/{request.namespace}/events" if request.namespace else (
            "/api/v1/events"
        )  # fmt: skip
        query = {"fieldSelector": f"{where},type=Warning", "limit": "100"}
        raw = self._get("events", path, query, _MAX_RESPONSE, budget=budget)
        try:
            listed = msgspec.json.decode(raw, type=EventList)
        except msgspec.DecodeError as err:
            raise FetchError(f"unreadable answer ({err})") from None
        return newest_warnings(listed, self._settings.events)

    def _owners(
        self, request: ContextRequest, budget: _Budget, problems: list[str]
    ) -> tuple[str, ...]:
        chain: list[str] = []
        owner = request.owner
        while owner is not None and len(chain) < self._settings.owner_depth:
            kind, name = owner
            chain.append(f"{kind}/{name}")
            path = owner_path(kind, request.namespace, name, kinds=self._kinds)
            if path is None:  # a kind we cannot look up: the chain ends with what we know
                break
            known, owner = self._owners_seen.get(path)
            if known:
                continue
            raw = self._get("owners", path, {}, _MAX_RESPONSE, budget=budget)
            try:
                owner = msgspec.json.decode(raw, type=OwnedObject).controller()
            except msgspec.DecodeError as err:
                problems.append(f"owners: {kind}/{name} unreadable ({err})")
                break
            self._owners_seen.put(path, owner)
        return tuple(chain)

    def _get(
        self,
        part: str,
        path: str,
        query: dict[str, str],
        max_bytes: int,
        accept: str | None = None,
        *,
        budget: _Budget,
    ) -> bytes:
        if budget.left() <= 0:
            API_REQUESTS.labels(part, "timeout").inc()
            raise FetchError("no time left (enrichment.timeout_seconds)")
        wait = self._bucket.when(part)
        if wait >= budget.left():
            API_REQUESTS.labels(part, "rate_limited").inc()
            raise FetchError("skipped: over the API request rate (enrichment.requests_per_second)")
        if wait > 0:
            time.sleep(wait)
        left = budget.left()
        try:
            data = self._client.get_bounded(
                path, query, timeout=left, max_bytes=max_bytes, accept=accept
            )
        except ApiError as err:
            outcome = _STATUS_PROBLEMS.get(err.status, f"error {err.status}")
            API_REQUESTS.labels(part, outcome.replace(" ", "_")).inc()
            needs = f" (needs {NEEDS[part]})" if err.status == 403 else ""
            raise FetchError(f"{outcome}{needs}: {err.message or err.reason}"[:300]) from None
        except (urllib3.exceptions.HTTPError, OSError) as err:
            timed_out = isinstance(err, urllib3.exceptions.TimeoutError)
            API_REQUESTS.labels(part, "timeout" if timed_out else "unreachable").inc()
            raise FetchError("timed out" if timed_out else f"unreachable ({err})"[:300]) from None
        API_REQUESTS.labels(part, "ok").inc()
        return data
