from __future__ import annotations

import time

from prometheus_client import REGISTRY

from notifier.delivery import Delivery
from tests.support.webhook_server import WebhookServer
from tests.unit.delivery.harness import eventually, metric, unique, webhook_target
from tests.unit.sinks.factories import notification


def gauge(name: str, sink: str) -> float | None:
    return REGISTRY.get_sample_value(
        f"kube_notifier_delivery_{name}", {"integration": "webhook", "sink": sink}
    )


def test_queue_depth_and_oldest_age_follow_the_queue() -> None:
    name = unique("hook")
    with WebhookServer() as server:
        server.go_down()
        delivery = Delivery([webhook_target(server.url, name)], outbox=None)
        delivery.start()
        for n in range(5):
            delivery.submit(
                notification(name, key=f"Pod/default/web-{n}", observed_at=time.time() - 30)
            )

        depth_while_down, age_while_down = (
            gauge("queue_depth", name),
            gauge("oldest_item_age_seconds", name),
        )
        server.come_up()
        eventually(lambda: metric("sent_total", name) == 5)
        depth_after = gauge("queue_depth", name)
        delivery.stop(time.monotonic() + 1)

    assert depth_while_down == 5
    assert age_while_down is not None and age_while_down >= 30
    assert depth_after == 0
    assert gauge("queue_depth", name) is None, "a stopped delivery reports no queue"
    assert metric("latency_seconds_bucket", name, le="30.0") == 0
    assert metric("latency_seconds_bucket", name, le="60.0") == 5
