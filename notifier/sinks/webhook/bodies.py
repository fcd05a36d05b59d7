"""Request bodies: the rendered JSON payload, or a CloudEvents structured-mode event.

``json``: the message's ``payload`` as is; ``{"text": ...}`` when the rule
rendered no payload. ``cloudevents``: a CloudEvents 1.0 envelope (``id`` is
the notification id, ``subject`` its ordering key, ``time`` when the change
was observed) with the same payload as ``data``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

import msgspec

from notifier.notifications import Notification

JSON_CONTENT_TYPE = "application/json"
CLOUDEVENTS_CONTENT_TYPE = "application/cloudevents+json; charset=utf-8"

BodyFormat = Literal["json", "cloudevents"]


@dataclass(frozen=True, slots=True)
class CloudEventsIdentity:
    source: str
    type: str


def payload_of(notification: Notification) -> dict[str, Any]:
    message = notification.message
    return message.payload if message.payload else {"text": message.text}


def encode_body(
    notification: Notification, body_format: BodyFormat, cloudevents: CloudEventsIdentity
) -> tuple[bytes, str]:
    """The body bytes and their Content-Type."""
    if body_format == "json":
        return msgspec.json.encode(payload_of(notification)), JSON_CONTENT_TYPE
    event = {
        "specversion": "1.0",
        "id": notification.id,
        "source": cloudevents.source,
        "type": cloudevents.type,
        "subject": notification.ordering_key,
        "time": datetime.fromtimestamp(notification.observed_at, UTC).isoformat(),
        "datacontenttype": JSON_CONTENT_TYPE,
        "data": payload_of(notification),
    }
    return msgspec.json.encode(event), CLOUDEVENTS_CONTENT_TYPE
