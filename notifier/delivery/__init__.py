"""Delivery: notifications to sinks, in order per object, retried, paced, durable.

See ``docs/delivery.md`` for what it promises and ``docs/delivery-internals.md`` for the code.
"""

from notifier.delivery.building import build_delivery
from notifier.delivery.delivery import Delivery
from notifier.delivery.runner import DeliveryTarget

__all__ = ["Delivery", "DeliveryTarget", "build_delivery"]
