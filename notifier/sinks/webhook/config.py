"""``type: webhook``'s settings under ``sinks:``."""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import Field, SecretStr, model_validator

from notifier.sinks.settings import DeliveryOptions, HttpSettings, SinkConfigBase, secret_pair


class WebhookDeliveryOptions(DeliveryOptions):
    concurrency: int = Field(default=4, ge=1, le=32)


class WebhookSinkConfig(SinkConfigBase, HttpSettings):
    template_parts = ("payload",)
    type: Literal["webhook"]
    url: SecretStr | None = None
    url_file: str | None = None
    # Where resolutions go when the receiver closes elsewhere than it opens (Opsgenie): same
    # scheme, host and port as url; "{fingerprint}" is replaced by the resolution's.
    resolved_url: str | None = None
    format: Literal["json", "cloudevents"] = "json"
    cloudevents_source: str = "kube-notifier"
    cloudevents_type: str = "io.kube-notifier.notification"
    headers: dict[str, str] = {}
    hmac_secret: SecretStr | None = None
    hmac_secret_file: str | None = None
    template: dict[str, Any] = {}  # parts: payload (a structure whose strings are templates)
    delivery: WebhookDeliveryOptions = WebhookDeliveryOptions()

    @model_validator(mode="after")
    def _one_source_per_secret(self) -> Self:
        secret_pair(self.url, self.url_file, "url", required=True)
        secret_pair(self.hmac_secret, self.hmac_secret_file, "hmac_secret", required=False)
        return self
