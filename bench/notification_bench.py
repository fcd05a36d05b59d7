"""What one webhook notification costs in CPU, part by part, against how each part was done before.

Run: ``.venv/bin/python -m bench.notification_bench`` (about 20 seconds).
Each row measures ours and a baseline in the same run, CPU time per item:

* ``render``: a Pod transition's webhook body. Ours: the rules' facts and
  the ``kube-notifier/v1`` payload the webhook receiver builds from them.
  Baseline: the same body as a template, every leaf through Jinja (how
  the rules rendered it before receivers rendered their own).
* ``post``: one POST of a 1.5 KB body to a local receiver (its own process)
  over a kept-alive connection, back to back. Ours: ``sinks.transport``
  (libcurl through pycurl, with the deadline, proxy and TLS settings).
  Baselines: ``http.client`` and urllib3's ``PoolManager`` (what the
  transport used before).
* ``lone post``: the same, one POST every 20 ms, as a service sees them at
  tens of changes a second (cold caches each time); the CPU of the waits
  alone, measured the same way, is taken off.
* ``state``: the SQLite writes of one change: outbox insert, last-seen
  upsert of a 2 KB object, outbox delete. Ours: the schema of
  ``notifier.state.schema`` and one commit for the change. Baseline: the
  version 1 table (WITHOUT ROWID, INSERT OR REPLACE) and a commit per write.

Then each receiver's CPU per notification (``bench.receiver_costs``): its body
rendered from the facts, encoded and sent to a local server.

Loops are bounded by a count and a time budget. Results go to stdout and
``bench/results/notification.json``.
"""

from __future__ import annotations

import http.client
import json
import os
import platform
import re
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import urllib3

from bench.delivery_bench import receiver
from bench.receiver_costs import receiver_rows
from bench.rules_bench import crashloop_in
from notifier.rules.facts.contexts import plain_facts, single_context
from notifier.sinks.transport import Transport
from notifier.sinks.webhook.payload import payload_of
from notifier.state.schema import migrate
from notifier.templating.environment import make_environment

MAX_ITERATIONS = 5_000
TIME_BUDGET_SECONDS = 3.0
RESULTS = Path(__file__).resolve().parent / "results" / "notification.json"
BODY = json.dumps({"summary": "x" * 1500}).encode()
OBJECT = os.urandom(1024).hex().encode()  # a 2 KB stand-in for an encoded Pod
KEYS = 3_000
_ONE_EXPRESSION = re.compile(r"\s*\{\{(.*?)\}\}\s*", re.DOTALL)


def cpu_per_call(call: Callable[[], object]) -> float:
    """Microseconds of this process's CPU per call (threads it starts included)."""
    call()  # warm: connections, caches
    count, started = 0, time.process_time()
    deadline = time.monotonic() + TIME_BUDGET_SECONDS
    while count < MAX_ITERATIONS and time.monotonic() < deadline:
        call()
        count += 1
    return (time.process_time() - started) / count * 1e6


# -- render --------------------------------------------------------------------
def jinja_everywhere(spec: Any) -> Callable[[dict[str, Any]], Any]:
    """The template compiled the old way: every string leaf a Jinja template or expression."""
    environment = make_environment()
    if isinstance(spec, dict):
        parts = {key: jinja_everywhere(value) for key, value in spec.items()}
        return lambda context: {key: render(context) for key, render in parts.items()}
    if isinstance(spec, list):
        items = [jinja_everywhere(value) for value in spec]
        return lambda context: [v for v in (render(context) for render in items) if v is not None]
    single = _ONE_EXPRESSION.fullmatch(spec) if isinstance(spec, str) else None
    if single is not None and "{{" not in single[1] and "}}" not in single[1]:
        expression = environment.compile_expression(single[1], False)
        return lambda context: expression(**context)
    if isinstance(spec, str):
        return environment.from_string(spec).render
    return lambda context: spec


# The v1 body as the rules' built-in template wrote it (a string of one ``{{ name }}`` each).
_OBJECT = ("kind", "namespace", "name", "uid", "resource_version", "labels")
_TRANSITION = ("old_states", "new_states", "entered", "left", "signals")
_FIELDS = ("cluster", "rule", "severity", "summary", "event", "origin", "reason", "message",
           "container", "restart_count", "owner", "age_seconds", "changes", "observed_at",
           "final_state_unknown", "status", "fingerprint")  # fmt: skip
V1_TEMPLATE = {
    "schema": "kube-notifier/v1",
    "type": "transition",
    **{name: f"{{{{ {name} }}}}" for name in _FIELDS},
    "object": {name: f"{{{{ {name} }}}}" for name in _OBJECT},
    "transition": {
        "text": "{{ transition }}",
        **{name: f"{{{{ {name} }}}}" for name in _TRANSITION},
    },
}


def render_row() -> dict[str, float]:
    context = single_context(crashloop_in("shop"), cluster="c", rule="r", owner=("Deployment", "w"))
    context["fingerprint"] = "f"
    old_payload = jinja_everywhere(V1_TEMPLATE)
    ours = cpu_per_call(lambda: payload_of(plain_facts(context)))
    before = cpu_per_call(lambda: old_payload(context))
    return {"ours": ours, "baseline": before}


# -- post ----------------------------------------------------------------------
def post_row(url: str) -> dict[str, float]:
    headers = {"Content-Type": "application/json"}
    parts = urlsplit(url)
    transport = Transport(url, connect_timeout=3, read_timeout=10)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port)
    pool = urllib3.PoolManager(retries=False)

    def by_http_client() -> None:
        conn.request("POST", parts.path or "/", body=BODY, headers=headers)
        conn.getresponse().read()

    try:
        return {
            "ours": cpu_per_call(lambda: transport.post(BODY, headers)),
            "http.client": cpu_per_call(by_http_client),
            "urllib3": cpu_per_call(lambda: pool.request("POST", url, body=BODY, headers=headers)),
        }
    finally:
        transport.close()
        conn.close()
        pool.clear()


LONE_GAP_SECONDS, LONE_POSTS = 0.02, 100


def cpu_per_lone_call(call: Callable[[], object]) -> float:
    """Microseconds of CPU per call with a 20 ms wait before each, less the waits' own."""

    def spaced(act: Callable[[], object]) -> float:
        act()
        started = time.process_time()
        for _ in range(LONE_POSTS):
            time.sleep(LONE_GAP_SECONDS)
            act()
        return (time.process_time() - started) / LONE_POSTS * 1e6

    return spaced(call) - spaced(lambda: None)


def lone_post_row(url: str) -> dict[str, float]:
    headers = {"Content-Type": "application/json"}
    transport = Transport(url, connect_timeout=3, read_timeout=10)
    pool = urllib3.PoolManager(retries=False)
    try:
        return {
            "ours": cpu_per_lone_call(lambda: transport.post(BODY, headers)),
            "urllib3": cpu_per_lone_call(
                lambda: pool.request("POST", url, body=BODY, headers=headers)
            ),
        }
    finally:
        transport.close()
        pool.clear()


# -- state ---------------------------------------------------------------------
V1_SEEN = """CREATE TABLE seen (kind TEXT NOT NULL, key TEXT NOT NULL, uid TEXT NOT NULL,
    resource_version TEXT NOT NULL, object BLOB NOT NULL, PRIMARY KEY (kind, key)) WITHOUT ROWID"""
V1_UPSERT = "INSERT OR REPLACE INTO seen VALUES ('Pod', ?, 'u', ?, ?)"
V2_UPSERT = (
    "INSERT INTO seen VALUES ('Pod', ?, 'u', ?, ?) ON CONFLICT (kind, key) DO UPDATE SET"
    " uid = excluded.uid, resource_version = excluded.resource_version, object = excluded.object"
)


def _database(directory: str, name: str, *, v1: bool) -> sqlite3.Connection:
    conn = sqlite3.connect(Path(directory) / name, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    migrate(conn)
    if v1:
        conn.execute("DROP TABLE seen")
        conn.execute(V1_SEEN)
    conn.execute("BEGIN")
    for index in range(KEYS):
        conn.execute(V1_UPSERT, (f"ns/pod-{index}", "0", OBJECT))
    conn.execute("COMMIT")
    return conn


def _change(conn: sqlite3.Connection, upsert: str, per_write: bool) -> Callable[[], None]:
    counter = iter(range(1, 10**9))

    def writes(seq: int) -> list[tuple[str, tuple[object, ...]]]:
        return [
            ("INSERT INTO outbox (seq, sink, body, stored_at) VALUES (?, 'w', ?, 0)", (seq, BODY)),
            (upsert, (f"ns/pod-{seq % KEYS}", str(seq), OBJECT)),
            ("DELETE FROM outbox WHERE seq = ?", (seq,)),
        ]

    def one_change() -> None:
        batches = [[w] for w in writes(next(counter))] if per_write else [writes(next(counter))]
        for batch in batches:
            conn.execute("BEGIN")
            for sql, args in batch:
                conn.execute(sql, args)
            conn.execute("COMMIT")

    return one_change


def state_row() -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="kn-bench-state-") as directory:
        ours = _database(directory, "v2.db", v1=False)
        before = _database(directory, "v1.db", v1=True)
        try:
            return {
                "ours": cpu_per_call(_change(ours, V2_UPSERT, per_write=False)),
                "baseline": cpu_per_call(_change(before, V1_UPSERT, per_write=True)),
            }
        finally:
            ours.close()
            before.close()


def main() -> None:
    with receiver() as url:
        rows = {
            "render": render_row(),
            "post": post_row(url),
            "lone post": lone_post_row(url),
            "state": state_row(),
        }
        receivers = receiver_rows(url, cpu_per_call)
    print(f"CPU per item, microseconds ({platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()})")  # fmt: skip
    print(f"{'part':9} {'ours':>8}  baselines")
    for part, figures in rows.items():
        ours = figures["ours"]
        others = ", ".join(
            f"{name} {value:.0f} ({value / ours:.1f}x)"
            for name, value in figures.items()
            if name != "ours"
        )
        print(f"{part:9} {ours:8.0f}  {others}")
    print("\nCPU per notification by receiver (render + encode + send), microseconds")
    webhook = receivers["webhook"]
    for kind, value in receivers.items():
        print(f"{kind:13} {value:8.0f}  ({value / webhook:.2f}x the webhook)")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    results = {"date": time.strftime("%Y-%m-%d %H:%M"), "rows": rows, "receivers": receivers}
    RESULTS.write_text(json.dumps(results))
    print(f"written to {RESULTS}")


if __name__ == "__main__":
    main()
