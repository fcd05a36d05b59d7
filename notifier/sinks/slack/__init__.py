"""The Slack sink: chat.postMessage with a bot token, or an incoming webhook."""

from notifier.sinks.slack.posting import ApiPoster, IncomingWebhookPoster, Poster
from notifier.sinks.slack.sink import SlackSink
from notifier.sinks.thread_roots import MemoryThreads, ThreadStore

__all__ = [
    "ApiPoster",
    "IncomingWebhookPoster",
    "MemoryThreads",
    "Poster",
    "SlackSink",
    "ThreadStore",
]
