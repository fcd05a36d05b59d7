"""The webhook sink: a JSON POST of the rendered payload, signed and idempotent."""

from notifier.sinks.webhook.signing import (
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    sign,
    verify_signature,
)
from notifier.sinks.webhook.sink import WebhookSink

__all__ = ["SIGNATURE_HEADER", "TIMESTAMP_HEADER", "WebhookSink", "sign", "verify_signature"]
