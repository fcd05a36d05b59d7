"""A stand-in for kube-apiserver: list and watch of generated Pods, Deployments and Services.

A bench tool, not a test double for watching: it exists to go beyond what the
local control plane can write (about 100-150 writes a second on 2 cores, and
no 100,000 Pods), so the service can be measured at scale. Everything that
claims to test watching runs against the real kube-apiserver
(tests/integration).

It speaks the API's own protocol, over plain HTTP on 127.0.0.1, no auth:

- ``GET /api/v1/pods``, ``/api/v1/namespaces/NS/pods`` (and ``services``,
  ``/apis/apps/v1/...deployments``): a list, paged by ``limit`` and
  ``continue`` (``remainingItemCount`` as the real one), with the list's
  resourceVersion; an expired continue token gets 410 Expired.
- ``?watch=true&resourceVersion=RV``: a chunked stream of JSON lines, the
  events after RV (the history) then live ones; ``allowWatchBookmarks``
  brings a BOOKMARK every ``--bookmark-seconds`` of quiet; the stream ends
  after ``timeoutSeconds``. An RV older than the history gets one ERROR
  event (a 410 Expired Status), as kube-apiserver's watch cache sends it.
  No RV (or "0") starts with an ADDED event per object.
- ``POST /control/burst?rate=R&seconds=S``: change ``seq`` on R Pods a
  second for S seconds (Pods taken round-robin in a fixed shuffled order,
  change n setting ``seq`` to n); answers with the count and the numbers
  of the changes made to Pods the bench's rule matches (``bench=1``).
- ``POST /control/gone``: every open watch gets a 410 and ends, and the
  history is forgotten, so every client must relist.
- Anything else: 404, and an ``unserved: METHOD PATH`` line on stderr (the
  bench's kube-notifier config needs nothing else: no Namespaces, ConfigMap
  or Lease).

    python -m bench.scale.standin --pods 100000 --namespaces 1000
    # prints "listening PORT" once the objects are generated
"""

from __future__ import annotations

import argparse
import asyncio
import random
import socket
import sys
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Callable

import uvicorn
from starlette.applications import Starlette
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from bench.scale import objects
from bench.scale.store import (
    Cluster,
    Collection,
    Event,
    GoneError,
    Key,
    bookmark_line,
    expired_line,
    list_body,
    status_body,
)

PLURALS = {"Pod": "pods", "Deployment": "deployments", "Service": "services"}
DEFAULT_WATCH_SECONDS = 1800
TICK = 0.005
ANY_METHOD = ("GET", "POST", "PUT", "PATCH", "DELETE")
GONE = b""  # sentinel on a watcher's queue: send 410 and end


class Churn:
    """Changes ``seq`` on Pods in a fixed shuffled order; change n sets it to n."""

    def __init__(self, cluster: Cluster, seed: int) -> None:
        self.cluster = cluster
        self.pods = cluster.collections["pods"]
        self.order: list[Key] = sorted(self.pods.objects)
        random.Random(seed).shuffle(self.order)
        self.seqs = [0] * len(self.order)
        self.made = 0

    def change(self) -> tuple[Event, bool]:
        """One change; and whether the bench's rule matches the Pod."""
        index = self.made % len(self.order)
        key, seq = self.order[index], self.made + 1
        old = self.pods.objects[key]
        document = old.replace(b'"seq":"%d"' % self.seqs[index], b'"seq":"%d"' % seq, 1)
        self.seqs[index], self.made = seq, seq
        return self.cluster.modify("pods", key, document), b'"bench":"1"' in document


class StandIn:
    def __init__(self, cluster: Cluster, churn: Churn, bookmark_seconds: float) -> None:
        self.cluster = cluster
        self.churn = churn
        self.bookmark_seconds = bookmark_seconds
        self.watchers: dict[tuple[str, str | None], set[asyncio.Queue[bytes]]] = defaultdict(set)

    # -- changes -------------------------------------------------------------
    def publish(self, plural: str, event: Event) -> None:
        for scope in ((plural, None), (plural, event.namespace)):
            for queue in self.watchers.get(scope, ()):
                queue.put_nowait(event.line)

    async def burst(self, rate: float, seconds: float) -> tuple[int, list[int], float]:
        total, matching = round(rate * seconds), []
        loop = asyncio.get_running_loop()
        started, made = loop.time(), 0
        while made < total:
            due = min(total, round((loop.time() - started) * rate) + 1)
            for _ in range(due - made):
                event, matches = self.churn.change()
                self.publish("pods", event)
                if matches:
                    matching.append(self.churn.made)
            made = due
            await asyncio.sleep(TICK)
        return made, matching, loop.time() - started

    def gone(self) -> int:
        ended = 0
        for queues in self.watchers.values():
            for queue in queues:
                queue.put_nowait(GONE)
                ended += 1
        self.cluster.forget_history()
        return ended

    # -- watch -----------------------------------------------------------------
    def opening(self, collection: Collection, namespace: str | None, version: str) -> list[bytes]:
        if version in ("", "0"):
            return [collection.event_line("ADDED", d) for d in collection.all_items(namespace)]
        return [event.line for event in collection.since(int(version), namespace)]

    def watch(self, plural: str, namespace: str | None, query: QueryParams) -> Response:
        """Open a watch: its backlog and its queue are taken together, so no event falls between."""
        collection, scope = self.cluster.collections[plural], (plural, namespace)
        backlog = self.opening(collection, namespace, query.get("resourceVersion", ""))
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        self.watchers[scope].add(queue)
        timeout = float(query.get("timeoutSeconds") or DEFAULT_WATCH_SECONDS)
        bookmarks = query.get("allowWatchBookmarks") == "true"
        body = self.stream(collection, queue, backlog, timeout, bookmarks)
        return StreamingResponse(body, media_type="application/json")

    async def stream(
        self,
        collection: Collection,
        queue: asyncio.Queue[bytes],
        backlog: list[bytes],
        timeout: float,
        bookmarks: bool,
    ) -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        try:
            if backlog:
                yield b"".join(line + b"\n" for line in backlog)
            while (left := deadline - loop.time()) > 0:
                try:
                    first = await asyncio.wait_for(queue.get(), min(left, self.bookmark_seconds))
                except TimeoutError:
                    if bookmarks and loop.time() < deadline:
                        yield bookmark_line(collection, self.cluster.version) + b"\n"
                    continue
                lines = [first, *(queue.get_nowait() for _ in range(queue.qsize()))]
                if GONE in lines:
                    yield expired_line("too old resource version: history forgotten") + b"\n"
                    return
                yield b"".join(line + b"\n" for line in lines)
        finally:
            for queues in self.watchers.values():
                queues.discard(queue)

    # -- HTTP --------------------------------------------------------------------
    async def resource(self, request: Request) -> Response:
        plural = request.path_params["plural"]
        namespace = request.path_params.get("namespace")
        query = request.query_params
        refusal = _refusal(request, plural, query)
        if refusal is not None:
            return refusal
        watching = query.get("watch") in ("true", "1")
        try:
            if watching:
                return self.watch(plural, namespace, query)
            return self.list(plural, namespace, query)
        except GoneError as err:
            if watching:  # the watch cache answers 200, a stream of one ERROR event
                lines = [expired_line(str(err)) + b"\n"]
                return StreamingResponse(iter(lines), media_type="application/json")
            return _status(410, "Expired", str(err))
        except ValueError as err:
            return _status(400, "BadRequest", str(err))

    def list(self, plural: str, namespace: str | None, query: QueryParams) -> Response:
        collection = self.cluster.collections[plural]
        limit, token = int(query.get("limit") or 0), query.get("continue", "")
        page = collection.page(namespace, limit, token, self.cluster.version)
        return Response(list_body(collection, page), media_type="application/json")

    async def control_burst(self, request: Request) -> Response:
        rate = float(request.query_params.get("rate", "5000"))
        seconds = float(request.query_params.get("seconds", "1"))
        made, matching, took = await self.burst(rate, seconds)
        return JSONResponse({"changes": made, "matching": matching, "seconds": took})

    async def unserved(self, request: Request) -> Response:
        return _unserved(request)

    async def control_gone(self, request: Request) -> Response:
        return JSONResponse({"watches_ended": self.gone(), "version": self.cluster.version})

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/api/v1/namespaces/{namespace}/{plural}", self.resource),
                Route("/apis/apps/v1/namespaces/{namespace}/{plural}", self.resource),
                Route("/api/v1/{plural}", self.resource),
                Route("/apis/apps/v1/{plural}", self.resource),
                Route("/control/burst", self.control_burst, methods=["POST"]),
                Route("/control/gone", self.control_gone, methods=["POST"]),
                Route("/{path:path}", self.unserved, methods=list(ANY_METHOD)),
            ]
        )


def _unserved(request: Request) -> Response:
    """Logged, so a client that needs more than the stand-in serves shows in its log."""
    print(f"unserved: {request.method} {request.url.path}", file=sys.stderr, flush=True)
    return _status(404, "NotFound", f"the stand-in does not serve {request.url.path}")


def _refusal(request: Request, plural: str, query: QueryParams) -> Response | None:
    if plural not in PLURALS.values():
        return _unserved(request)
    if "labelSelector" in query or "fieldSelector" in query:
        return _status(400, "BadRequest", "the stand-in does not filter by selectors")
    return None


def _status(code: int, reason: str, message: str) -> Response:
    return Response(status_body(code, reason, message), code, media_type="application/json")


def build(pods: int, namespaces: int, history: int, seed: int) -> Cluster:
    cluster = Cluster.empty(history)
    for item in objects.generate(pods, namespaces, seed):
        cluster.load(PLURALS[item.kind], (item.namespace, item.name), item.document)
    return cluster


def listening_socket(port: int) -> socket.socket:
    sock = socket.socket()
    # Accepted connections inherit it: without it, a response's head and body wait on each
    # other (Nagle against the client's delayed ACK), 40 ms per request on a kept-alive one.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(4096)  # before "listening": a client may connect before uvicorn's loop runs
    return sock


def default_standin(cluster: Cluster, args: argparse.Namespace) -> StandIn:
    return StandIn(cluster, Churn(cluster, args.seed), args.bookmark_seconds)


def main(
    argv: list[str] | None = None,
    make: Callable[[Cluster, argparse.Namespace], StandIn] = default_standin,
) -> None:
    """Generate the cluster, say ``listening PORT``, serve until stopped (``make``: the server)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pods", type=int, default=100_000)
    parser.add_argument("--namespaces", type=int, default=1_000)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--bookmark-seconds", type=float, default=5.0)
    parser.add_argument("--history", type=int, default=50_000, help="watch events kept per kind")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    started = time.monotonic()
    cluster = build(args.pods, args.namespaces, args.history, args.seed)
    standin = make(cluster, args)
    sock = listening_socket(args.port)
    took = time.monotonic() - started
    print(f"generated {cluster.version} objects in {took:.1f}s", file=sys.stderr, flush=True)
    print(f"listening {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(
        standin.app(), log_level="warning", access_log=False, timeout_graceful_shutdown=2
    )
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
