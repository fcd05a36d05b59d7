"""Context attached to a notification before it is sent: logs, Warning Events, owners, changes.

A rule asks with ``enrich: [logs, events, owners, changes]``; the rules put a
``ContextRequest`` on its notifications; delivery starts fetching when a
notification is submitted (``Enricher.prefetch``) and waits for the rest of
the deadline only when the notification reaches the head of its sink's
queue (``Enricher.context_for``). The workers never wait for the API here.
"""
