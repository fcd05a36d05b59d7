"""``kube-notifier sinks test NAME --config FILE``: one marked test notification, sent for real.

The sink is built as ``run`` builds it (its secret and TLS files read), sent
one notification that says it is a test (rule ``kube-notifier-test``, its own
fingerprint, no object), and what the receiver answered is printed. The
exit codes are every command's (``notifier.exits``, docs/cli.md): 0 when the
receiver took it, 1 when it did not (with the bounded reason delivery would
log, the receiver's own words, and whether a retry could help), 5 when the
config does not load, names no such sink, or the sink cannot be built.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from typing import TextIO

from notifier.config import ConfigError, read_config
from notifier.config.sink_errors import sink_build_error
from notifier.exits import Exit
from notifier.notifications import Notification
from notifier.sinks.base import Receiver, SendError
from notifier.sinks.building import build_sink
from notifier.sinks.secrets import SinkBuildError
from notifier.sinks.thread_roots import MemoryThreads
from notifier.sinks.transport import clear_last_reply, last_reply
from notifier.templating.environment import format_duration
from notifier.text import without_controls

TEST_RULE = "kube-notifier-test"
_SHOWN_BYTES = 500


def run_test(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        config = read_config(args.config).config
    except ConfigError as err:
        print(err, file=out)  # every line names the file
        return Exit.CONFIG
    except OSError as err:
        print(f"{args.config}: cannot read: {err.strerror or err}", file=out)
        return Exit.CONFIG
    found = next((sink for sink in config.sinks if sink.name == args.name), None)
    if found is None:
        names = ", ".join(sink.name for sink in config.sinks) or "none"
        print(f"{args.config}: no sink named {args.name!r} (sinks: {names})", file=out)
        return Exit.CONFIG
    try:
        sink = build_sink(found, threads=MemoryThreads())
    except SinkBuildError as err:
        print(sink_build_error(args.config, config, [(found.name, err)]), file=out)
        return Exit.CONFIG
    note = test_notification(args.name, config.cluster_name)
    clear_last_reply()
    started = time.monotonic()
    try:
        sink.send(note)
        took = time.monotonic() - started
    except SendError as err:
        again = "a retry could help" if err.retryable else "a retry would not help"
        print(f"sink {args.name} ({sink.integration}): FAILED: {err} ({again})", file=out)
        _print_answer(out)
        return Exit.FAILED
    finally:
        sink.close()
    shown = format_duration(took) if took >= 1 else f"{took * 1000:.0f} ms"
    print(f"sink {args.name} ({sink.integration}): OK: the receiver took it in {shown}", file=out)
    _print_answer(out)
    if isinstance(sink, Receiver):
        print(sink.preview(note), file=out)
    return Exit.OK


def _print_answer(out: TextIO) -> None:
    """The receiver's last HTTP answer: its status and the start of its body."""
    reply = last_reply()
    if reply is not None:
        body = reply.body[:_SHOWN_BYTES].decode("utf-8", errors="replace")
        print(f"answer: HTTP {reply.status} {without_controls(body)}".rstrip(), file=out)


def test_notification(sink: str, cluster: str) -> Notification:
    """A notification that says it is a test: facts every receiver renders its body from."""
    where = f"[{cluster}] " if cluster else ""
    summary = f"{where}kube-notifier test of sink {sink}: if you read this, it works"
    now = time.time()
    observed = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now))
    fingerprint = f"kube-notifier-test-{uuid.uuid4().hex[:16]}"
    facts = {
        "cluster": cluster, "rule": TEST_RULE, "kind": "Test", "namespace": "kube-notifier",
        "name": sink, "key": f"kube-notifier/{sink}", "summary": summary,
        "transition": "test notification", "state": "Test", "severity": "info",
        "status": "firing", "resolved": False, "details": [["Test", "sent by sinks test"]],
        "observed_at": observed, "fired_at": observed, "fingerprint": fingerprint,
        "rule_labels": {}, "send_resolved": False, "told_states": [],
    }  # fmt: skip
    return Notification(
        id=f"test-{uuid.uuid4().hex}", sink=sink, rule=TEST_RULE,
        ordering_key=f"test/{sink}", observed_at=now, fingerprint=fingerprint, facts=facts,
    )  # fmt: skip
