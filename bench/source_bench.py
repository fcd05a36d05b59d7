"""Informer source path, ours vs the kubernetes client's: events per second and bytes per Pod.

Both paths read the same recorded watch stream (``bench.podgen``: ~10 KB
Pods as kube-apiserver sends them; N ADDED events, then M MODIFIED events
over those Pods), each in its own fresh interpreter pinned to one core.

- ours: ``Reflector._watch`` over a client that replays the recorded lines,
  so the timed loop is the service's own: msgspec decode -> ``trim``
  (drop, intern) -> ``Store.upsert`` -> ``Intake.handle`` -> the workqueue.
- client: what the tutorials do with ``kubernetes.watch.Watch``: each line
  through ``Watch.unmarshal_event`` into a ``V1Pod`` (the return type its
  ``stream`` derives from ``CoreV1Api.list_pod_for_all_namespaces``), then
  a dict cache and a ``queue.Queue``.
- dicts: the same client used well, ``Watch.stream(..., deserialize=False)``:
  each line only through ``json.loads`` (what that mode does), plain dicts
  cached, no models. The stronger of the two baselines; ratios name theirs.

Throughput: the ADDED events fill the cache (the initial list), the heap is
frozen as the service does after sync, the queue is drained (the workers
took the initial list), then the MODIFIED events are timed. Memory: a fresh
process caches the N ADDED Pods and reports the RSS growth per Pod (both
ways), and the tracemalloc growth per Pod (ours: all N; the client: the
first ``--client-traced`` Pods, as tracemalloc slows it down ~5x).

Bounded: two to five minutes with the defaults on a 2-core machine (more
when it is busy), nearly all of it in the client's path; ``--quick`` takes
one. Prints a table and writes bench/results/source.json.

    .venv/bin/python -m bench.source_bench [--pods 10000] [--modified 20000] [--quick]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import queue
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

from kubernetes import client, watch

from bench.podgen import recorded_stream
from notifier.kinds.registry import KINDS
from notifier.kinds.sharing import freeze_heap
from notifier.objects import Kind, KubeObject, ObjectKey, key_of
from notifier.queue import RateLimitingQueue
from notifier.source.client import RawClient
from notifier.source.credentials import ClusterAccess, load_access
from notifier.source.informer_store import InformerStore
from notifier.source.reflector import Reflector
from notifier.source.resources import resource_for
from notifier.source.store import Store
from notifier.source.trimming import trim
from notifier.workers.intake import Intake
from notifier.workers.keys import WorkKey
from notifier.workers.known import Known

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "source.json"
TARGET_RATIO = 30.0
TARGET_BYTES_PER_POD = 2048
CHILD_TIMEOUT = 900.0
Result = dict[str, Any]


# -- the recorded stream, shared through a file -------------------------------
@dataclass
class Recorded:
    added: list[bytes]
    modified: list[bytes]


def write_stream(path: Path, pods: int, modified: int, seed: int) -> Result:
    stream = recorded_stream(pods=pods, modified=modified, seed=seed)
    path.write_bytes(b"\n".join([*stream.added, *stream.modified]))
    sizes = [len(line) for line in (*stream.added, *stream.modified)]
    return {
        "pods": pods,
        "modified_events": modified,
        "seed": seed,
        "sha256": stream.digest(),
        "mean_event_bytes": round(sum(sizes) / len(sizes)),
    }


def read_stream(path: Path, pods: int) -> Recorded:
    lines = path.read_bytes().split(b"\n")
    return Recorded(added=lines[:pods], modified=lines[pods:])


# -- measuring ------------------------------------------------------------------
def pin_to_one_core(cpu: int) -> None:
    os.sched_setaffinity(0, {cpu})


def rss_bytes() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class Rate:
    """Events per wall-clock second, and per CPU second (steadier when the machine is busy)."""

    per_s: float
    per_cpu_s: float


def rate(events: int, run: Callable[[], None]) -> Rate:
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return Rate(events / (time.perf_counter() - wall), events / (time.process_time() - cpu))


def best(rates: Sequence[Rate], name: str) -> Result:
    """The fastest of repeated runs (the least disturbed by other work on the machine)."""
    fastest = max(rates, key=lambda r: r.per_s)
    return {f"{name}_per_s": fastest.per_s, f"{name}_per_cpu_s": fastest.per_cpu_s}


def full_collection_seconds() -> float:
    started = time.perf_counter()
    gc.collect()
    return time.perf_counter() - started


# -- our path ---------------------------------------------------------------------
class ReplayClient(RawClient):
    """Answers every watch with the recorded lines; never touches the network."""

    lines: Sequence[bytes] = ()

    def stream_lines(self, *args: Any, **kwargs: Any) -> Iterator[bytes]:
        return iter(self.lines)


def offline_access() -> ClusterAccess:
    """A client for a server that is never asked (the replay answers every watch)."""
    with tempfile.TemporaryDirectory(prefix="source-bench-") as scratch:
        path = Path(scratch, "kubeconfig")
        cluster = {"name": "c", "cluster": {"server": "https://127.0.0.1:1"}}
        context = {"name": "x", "context": {"cluster": "c"}}
        config = {"clusters": [cluster], "contexts": [context], "current-context": "x"}
        path.write_text(json.dumps(config))
        return load_access(str(path))


class OurPipeline:
    """Reflector, store, intake and workqueue as the service wires them."""

    def __init__(self) -> None:
        self.client = ReplayClient(offline_access())
        self.store = Store(Kind.POD)
        self.queue = RateLimitingQueue[WorkKey]("bench-source")
        self.intake = Intake(self.queue, Known())
        self.reflector = Reflector(
            list_watch=resource_for(Kind.POD, kinds=KINDS).list_watch(None),
            store=InformerStore(Kind.POD, self.store, self.intake),
            client=self.client,
        )

    def feed(self, lines: Sequence[bytes]) -> None:
        """One watch that delivers ``lines``: the service's own loop, from decode to queue."""
        self.client.lines = lines
        self.reflector._watch(threading.Event())

    def drain(self) -> None:
        """What workers do: take each queued key and its pending deltas."""
        while (key := self.queue.get(timeout=0)) is not None:
            self.intake.take(key)
            self.queue.done(key)


def our_stage_rates(stream: Recorded, repeats: int) -> Result:
    """Events/s of decode alone and of decode + trim (drop + intern), best of ``repeats``."""
    decoder, lines = resource_for(Kind.POD, kinds=KINDS).decoders.event, stream.modified

    def decode() -> None:
        for line in lines:
            decoder.decode(line)

    def decode_and_trim() -> None:
        for line in lines:
            trim(decoder.decode(line).object)

    return {
        **best([rate(len(lines), decode) for _ in range(repeats)], "decode_events"),
        **best([rate(len(lines), decode_and_trim) for _ in range(repeats)], "decode_trim_events"),
    }


def our_throughput(stream: Recorded, repeats: int) -> Result:
    pipeline = OurPipeline()
    initial = rate(len(stream.added), lambda: pipeline.feed(stream.added))
    gc_before = full_collection_seconds()
    frozen = freeze_heap()
    gc_after = full_collection_seconds()
    rates = []
    for _ in range(repeats):
        pipeline.drain()
        rates.append(rate(len(stream.modified), lambda: pipeline.feed(stream.modified)))
    assert len(pipeline.store) == len(stream.added), "every Pod is cached"
    return {
        **best([initial], "initial_list_events"),
        **best(rates, "events"),
        "events_per_s_runs": [r.per_s for r in rates],
        "full_gc_seconds_before_freeze": gc_before,
        "full_gc_seconds_after_freeze": gc_after,
        "frozen_objects": frozen,
        **our_stage_rates(stream, repeats),
    }


def our_cache(lines: Sequence[bytes]) -> Store:
    """Only the cache (Store + intern tables): what a cached Pod costs."""
    decoder, store = resource_for(Kind.POD, kinds=KINDS).decoders.event, Store(Kind.POD)
    for line in lines:
        store.upsert(trim(decoder.decode(line).object))
    return store


def untrimmed_cache(lines: Sequence[bytes]) -> dict[ObjectKey, KubeObject]:
    """msgspec Structs as decoded, without trim's interning: what interning saves."""
    decoder = resource_for(Kind.POD, kinds=KINDS).decoders.event
    return {key_of(pod): pod for pod in (decoder.decode(line).object for line in lines)}


# -- the client's path ------------------------------------------------------------
def client_watch() -> tuple[Any, Any]:
    """A Watch and the return type its ``stream`` uses for a Pod watch."""
    watcher = watch.Watch()  # type: ignore[no-untyped-call]
    pod_type = watcher.get_return_type(  # type: ignore[no-untyped-call]
        client.CoreV1Api().list_pod_for_all_namespaces
    )
    return watcher, pod_type


@dataclass(frozen=True)
class ClientPath:
    """How a baseline turns one watch line into an event, and an object into its key."""

    decode: Callable[[bytes], dict[str, Any]]
    key: Callable[[Any], str]


def models() -> ClientPath:
    watcher, pod_type = client_watch()
    return ClientPath(
        decode=lambda line: watcher.unmarshal_event(line.decode("utf-8"), pod_type),
        key=lambda pod: f"{pod.metadata.namespace}/{pod.metadata.name}",
    )


def dicts() -> ClientPath:
    # Watch.stream(..., deserialize=False): its lines are str, each json.loads'ed, no models.
    return ClientPath(
        decode=lambda line: json.loads(line.decode("utf-8")),
        key=lambda pod: f"{pod['metadata']['namespace']}/{pod['metadata']['name']}",
    )


def client_feed(
    path: ClientPath, lines: Sequence[bytes], cache: dict[str, Any], keys: queue.Queue[str]
) -> None:
    for line in lines:
        event = path.decode(line)
        key = path.key(event["object"])
        if event["type"] == "DELETED":
            cache.pop(key, None)
        else:
            cache[key] = event["object"]
        keys.put(key)


def client_throughput(path: ClientPath, stream: Recorded, limit: int) -> Result:
    warm_up(lambda lines: client_cache(path, lines), stream.added)  # one-time imports
    cache: dict[str, Any] = {}
    keys: queue.Queue[str] = queue.Queue()
    initial = rate(len(stream.added), lambda: client_feed(path, stream.added, cache, keys))
    gc_before = full_collection_seconds()
    frozen = freeze_heap()
    gc_after = full_collection_seconds()
    while not keys.empty():
        keys.get_nowait()
    timed = stream.modified[:limit] if limit else stream.modified
    events = rate(len(timed), lambda: client_feed(path, timed, cache, keys))
    return {
        **best([initial], "initial_list_events"),
        **best([events], "events"),
        "timed_events": len(timed),
        "full_gc_seconds_before_freeze": gc_before,
        "full_gc_seconds_after_freeze": gc_after,
        "frozen_objects": frozen,
    }


def client_cache(path: ClientPath, lines: Sequence[bytes]) -> dict[str, Any]:
    cache: dict[str, Any] = {}
    client_feed(path, lines, cache, queue.Queue())
    return cache


def model_cache(lines: Sequence[bytes]) -> dict[str, Any]:
    return client_cache(models(), lines)


def dict_cache(lines: Sequence[bytes]) -> dict[str, Any]:
    return client_cache(dicts(), lines)


# -- memory ------------------------------------------------------------------------
def warm_up(build: Callable[[Sequence[bytes]], Any], lines: Sequence[bytes]) -> None:
    """Decode one event first: the client imports its model modules on first use."""
    build(lines[:1])


def rss_per_pod(build: Callable[[Sequence[bytes]], Any], lines: Sequence[bytes]) -> Result:
    warm_up(build, lines)
    gc.collect()
    before = rss_bytes()
    cache = build(lines)
    gc.collect()
    grown = rss_bytes() - before
    assert len(cache) == len(lines)
    return {"rss_bytes_per_pod": grown / len(lines), "pods": len(lines)}


def traced_per_pod(build: Callable[[Sequence[bytes]], Any], lines: Sequence[bytes]) -> Result:
    warm_up(build, lines)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    cache = build(lines)
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert len(cache) == len(lines)
    return {"traced_bytes_per_pod": grown / len(lines), "pods": len(lines)}


# -- children: one measurement per fresh interpreter ------------------------------
def run_child(args: argparse.Namespace) -> Result:
    pin_to_one_core(args.cpu)
    stream = read_stream(Path(args.stream), args.pods)
    roles: dict[str, Callable[[], Result]] = {
        "ours-throughput": lambda: our_throughput(stream, args.repeats),
        "client-throughput": lambda: client_throughput(models(), stream, args.client_events),
        "dicts-throughput": lambda: client_throughput(dicts(), stream, 0),
        "ours-rss": lambda: rss_per_pod(our_cache, stream.added),
        "untrimmed-rss": lambda: rss_per_pod(untrimmed_cache, stream.added),
        "client-rss": lambda: rss_per_pod(model_cache, stream.added),
        "dicts-rss": lambda: rss_per_pod(dict_cache, stream.added),
        "ours-traced": lambda: traced_per_pod(our_cache, stream.added),
        "untrimmed-traced": lambda: traced_per_pod(untrimmed_cache, stream.added),
        "client-traced": lambda: traced_per_pod(model_cache, stream.added[: args.client_traced]),
        "dicts-traced": lambda: traced_per_pod(dict_cache, stream.added),
    }
    return roles[args.child]()


def spawn(role: str, stream: Path, args: argparse.Namespace) -> Result:
    command = [
        sys.executable, "-m", "bench.source_bench", "--child", role, "--stream", str(stream),
        "--pods", str(args.pods), "--cpu", str(args.cpu), "--repeats", str(args.repeats),
        "--client-events", str(args.client_events), "--client-traced", str(args.client_traced),
    ]  # fmt: skip
    print(f"  {role} ...", file=sys.stderr, flush=True)
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=CHILD_TIMEOUT, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{role} failed ({done.returncode}):\n{done.stderr}")
    result: Result = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# -- the report ----------------------------------------------------------------------
def machine(cpu: int) -> Result:
    model = "unknown"
    with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
        model = next((ln.split(":", 1)[1].strip() for ln in cpuinfo if "model name" in ln), model)
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "pinned_cpu": cpu,
        "python": platform.python_version(),
        "msgspec": version("msgspec"),
        "kubernetes": version("kubernetes"),
        "platform": platform.platform(),
        "load_average_at_start": os.getloadavg(),
    }


def summarize(measured: dict[str, Result]) -> Result:
    ours, client = measured["ours-throughput"], measured["client-throughput"]
    ours_rss, client_rss = measured["ours-rss"], measured["client-rss"]
    ours_traced = measured["ours-traced"]["traced_bytes_per_pod"]
    dicts_ = measured["dicts-throughput"]
    against_dicts = {
        "events_per_s": ours["events_per_s"] / dicts_["events_per_s"],
        "events_per_cpu_s": ours["events_per_cpu_s"] / dicts_["events_per_cpu_s"],
        "rss_bytes_per_pod": measured["dicts-rss"]["rss_bytes_per_pod"]
        / ours_rss["rss_bytes_per_pod"],
        "traced_bytes_per_pod": measured["dicts-traced"]["traced_bytes_per_pod"] / ours_traced,
    }
    ratios = {
        "events_per_s": ours["events_per_s"] / client["events_per_s"],
        "events_per_cpu_s": ours["events_per_cpu_s"] / client["events_per_cpu_s"],
        # Against the client's best phase: its initial list, where nothing is replaced.
        "events_per_s_vs_client_best": ours["events_per_s"]
        / max(client["events_per_s"], client["initial_list_events_per_s"]),
        "decode_trim_events_per_s": ours["decode_trim_events_per_s"] / client["events_per_s"],
        "rss_bytes_per_pod": client_rss["rss_bytes_per_pod"] / ours_rss["rss_bytes_per_pod"],
        "traced_bytes_per_pod": measured["client-traced"]["traced_bytes_per_pod"] / ours_traced,
    }
    return {
        "ratios": ratios,
        "ratios_vs_dicts": against_dicts,
        "targets": {
            "events_ratio_min": TARGET_RATIO,
            "bytes_per_pod_max": TARGET_BYTES_PER_POD,
            "events_ratio_met": min(ratios[k] for k in _EVENT_RATIOS) >= TARGET_RATIO,
            "bytes_per_pod_met": max(ours_traced, ours_rss["rss_bytes_per_pod"])
            < TARGET_BYTES_PER_POD,
        },
    }


_EVENT_RATIOS = (
    "events_per_s",
    "events_per_cpu_s",
    "events_per_s_vs_client_best",
    "decode_trim_events_per_s",
)


def table(report: Result) -> str:
    m, s = report["measured"], report["summary"]
    ours, client, dicts_ = m["ours-throughput"], m["client-throughput"], m["dicts-throughput"]
    rows = [
        ("events/s, MODIFIED, full path", ours["events_per_s"], client["events_per_s"],
         dicts_["events_per_s"]),
        ("events/CPU-s, MODIFIED, full path", ours["events_per_cpu_s"],
         client["events_per_cpu_s"], dicts_["events_per_cpu_s"]),
        ("events/s, ADDED (initial list)", ours["initial_list_events_per_s"],
         client["initial_list_events_per_s"], dicts_["initial_list_events_per_s"]),
        ("events/s, decode + trim only", ours["decode_trim_events_per_s"], None, None),
        ("events/s, decode only", ours["decode_events_per_s"], None, None),
        ("bytes/Pod cached, RSS", m["ours-rss"]["rss_bytes_per_pod"],
         m["client-rss"]["rss_bytes_per_pod"], m["dicts-rss"]["rss_bytes_per_pod"]),
        ("bytes/Pod cached, tracemalloc", m["ours-traced"]["traced_bytes_per_pod"],
         m["client-traced"]["traced_bytes_per_pod"], m["dicts-traced"]["traced_bytes_per_pod"]),
        ("bytes/Pod, msgspec without interning", m["untrimmed-traced"]["traced_bytes_per_pod"],
         None, None),
        ("full gc.collect() s, before freeze", ours["full_gc_seconds_before_freeze"],
         client["full_gc_seconds_before_freeze"], dicts_["full_gc_seconds_before_freeze"]),
        ("full gc.collect() s, after freeze", ours["full_gc_seconds_after_freeze"],
         client["full_gc_seconds_after_freeze"], dicts_["full_gc_seconds_after_freeze"]),
    ]  # fmt: skip
    lines = [f"{'':40} {'ours':>14} {'client models':>14} {'client dicts':>14}"]
    for label, mine, models_, plain in rows:
        lines.append(f"{label:40} {_figure(mine):>14} {_figure(models_):>14} {_figure(plain):>14}")
    lines.append(
        "ratios vs client models: " + ", ".join(f"{k} {v:.1f}x" for k, v in s["ratios"].items())
    )
    lines.append(
        "ratios vs client dicts (deserialize=False): "
        + ", ".join(f"{k} {v:.1f}x" for k, v in s["ratios_vs_dicts"].items())
    )
    lines.append(f"targets: {s['targets']}")
    return "\n".join(lines)


def _figure(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.4f}" if value < 10 else f"{value:,.0f}"


ROLES = (
    "ours-throughput",
    "ours-rss",
    "ours-traced",
    "untrimmed-rss",
    "untrimmed-traced",
    "client-throughput",
    "client-rss",
    "client-traced",
    "dicts-throughput",
    "dicts-rss",
    "dicts-traced",
)


def run_parent(args: argparse.Namespace) -> Result:
    machine_before = machine(args.cpu)
    with tempfile.TemporaryDirectory(prefix="source-bench-") as scratch:
        stream_file = Path(scratch) / "stream.jsonl"
        print("recording the stream ...", file=sys.stderr, flush=True)
        stream = write_stream(stream_file, args.pods, args.modified, args.seed)
        measured = {role: spawn(role, stream_file, args) for role in ROLES}
    report = {"machine": machine_before, "stream": stream, "measured": measured}
    report["machine"]["load_average_at_end"] = os.getloadavg()
    report["summary"] = summarize(measured)
    return report


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--modified", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=3, help="timed passes of our path (best)")
    parser.add_argument("--client-events", type=int, default=0, help="cap (0: all MODIFIED)")
    parser.add_argument("--client-traced", type=int, default=1_000)
    parser.add_argument("--cpu", type=int, default=max(os.sched_getaffinity(0)))
    parser.add_argument("--quick", action="store_true", help="2,000 Pods, 4,000 events")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--stream", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.pods, args.modified, args.client_traced = 2_000, 4_000, 200
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(argv)
    if args.child:
        print(json.dumps(run_child(args)))
        return
    report = run_parent(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(table(report))
    print(f"machine: {report['machine']}\nwritten: {args.out}")


if __name__ == "__main__":
    main()
