"""``SlackSink``: Block Kit with the text fallback, rendered from the facts (``blocks``),
fitted to Slack's limits, optionally threaded.

With threading on and a poster that can thread (bot token), the first
notification for a ``thread_key`` starts a thread and its ``ts`` is kept in
the ``ThreadStore``; later notifications with that key reply in it, and a
resolution that closes its thread (``send_resolved`` with ``thread_by:
object``) also replaces the first message with itself, so the channel shows
the thread is over; in a thread per group it only replies. Sends
for one thread key are serialized (striped locks) so two concurrent first
messages cannot start two threads. Thread-safe.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from notifier.notifications import Notification
from notifier.sinks.base import Capabilities, SendError, Verdict
from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.showing import shown
from notifier.sinks.slack.blocks import PARTS, mrkdwn_escaped
from notifier.sinks.slack.limits import fit_blocks, fit_text
from notifier.sinks.slack.posting import Poster
from notifier.sinks.thread_roots import ThreadStore

_LOCK_STRIPES = 64
log = logging.getLogger("notifier.sinks")


class SlackSink:
    def __init__(
        self,
        name: str,
        poster: Poster,
        *,
        threads: ThreadStore | None,
        thread_scope: str,
        template: ReceiverTemplate | None = None,
    ) -> None:
        self._name = name
        self._template = template or ReceiverTemplate(name, PARTS, {})
        self._poster = poster
        self._threads = threads if poster.can_thread else None
        self._thread_scope = thread_scope
        self._stripes = tuple(threading.Lock() for _ in range(_LOCK_STRIPES))

    @property
    def name(self) -> str:
        return self._name

    @property
    def integration(self) -> str:
        return "slack"

    @property
    def capabilities(self) -> Capabilities:
        threads = self._threads is not None
        return Capabilities(resolve=True, threads=threads, update_in_place=threads)

    def check_credentials(self) -> Verdict:
        return self._poster.check()

    def preview(self, notification: Notification) -> str:
        text, blocks = self._message(notification)
        return shown({"text": text, "blocks": blocks})

    def send(self, notification: Notification) -> None:
        text, blocks = self._message(notification)
        thread_key = notification.thread_key
        if self._threads is None or thread_key is None:
            self._poster.post(text, blocks, None)
            return
        with self._stripes[hash(thread_key) % _LOCK_STRIPES]:
            root = self._threads.thread_ts(self._thread_scope, thread_key)
            ts = self._poster.post(text, blocks, root)
            if root is None and ts is not None:
                self._threads.remember_thread(self._thread_scope, thread_key, ts)
            elif root is not None and notification.closes_thread:
                self._mark_over(root, text, blocks)

    def _mark_over(self, root: str, text: str, blocks: list[dict[str, Any]]) -> None:
        """The thread's first message says it is over too, for a reader of the channel.

        Best effort: the resolution is in the thread already, and failing the send now
        would post it again on retry.
        """
        try:
            self._poster.update(root, text, blocks)
        except SendError as err:
            log.warning("%s: could not mark thread %s resolved: %s", self._name, root, err)

    def close(self) -> None:
        return None

    def _message(self, notification: Notification) -> tuple[str, list[dict[str, Any]]]:
        """The fallback text (plain text, as Slack's fallback mrkdwn) and the blocks, fitted."""
        facts = notification.facts
        text = fit_text(mrkdwn_escaped(self._template.render("text", facts)))
        return text, fit_blocks(self._template.render("blocks", facts))
