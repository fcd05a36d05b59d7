"""Request bodies: the JSON payload, or a CloudEvents structured-mode event.

``json``: the payload (``payload``: the ``kube-notifier/v1`` body, or the
sink's template's) as is. ``cloudevents``: a CloudEvents 1.0 envelope
(``id`` is the notification id, ``subject`` its ordering key, ``time`` when
the change was observed) with the same payload as ``data``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from notifier.notifications import Notification

JSON_CONTENT_TYPE = "application/json"
CLOUDEVENTS_CONTENT_TYPE = "application/cloudevents+json; charset=utf-8"

BodyFormat = Literal["json", "cloudevents"]


@dataclass(frozen=True, slots=True)
class CloudEventsIdentity:
    source: str
    type: str


def wrapped(
    notification: Notification,
    payload: dict[str, Any],
    body_format: BodyFormat,
    cloudevents: CloudEventsIdentity,
) -> tuple[dict[str, Any], str]:
    """The body and its Content-Type."""
    if body_format == "json":
        return payload, JSON_CONTENT_TYPE
    event = {
        "specversion": "1.0",
        "id": notification.id,
        "source": cloudevents.source,
        "type": cloudevents.type,
        "subject": notification.ordering_key,
        "time": datetime.fromtimestamp(notification.observed_at, UTC).isoformat(),
        "datacontenttype": JSON_CONTENT_TYPE,
        "data": payload,
    }
    return event, CLOUDEVENTS_CONTENT_TYPE
