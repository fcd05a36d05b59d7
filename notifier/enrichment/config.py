"""``enrichment:``: how context is fetched (bounds, deadline, rate) and what is redacted."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from notifier.enrichment.redaction import check_pattern
from notifier.rules.config.durations import Duration


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RedactionSpec(_Spec):
    """A regex (RE2) whose matches in log lines are replaced before they leave the cluster."""

    pattern: str = Field(min_length=1, max_length=1000)
    replacement: str = Field(default="[REDACTED]", max_length=200)  # may use \\1 for a group

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        check_pattern(value)
        return value


class ChangesConfig(_Spec):
    """``enrich: [changes]``: how far back a change counts, what is read (docs/enrichment.md)."""

    window: Duration = Field(default=3600.0, gt=0, le=7 * 86400)  # before the trouble
    secrets: bool = False  # look at the Secrets a Pod reads (metadata only: never their data)
    requests: int = Field(default=12, ge=4, le=32)  # API requests per notification, at most


class EnrichmentConfig(_Spec):
    timeout_seconds: float = Field(default=3.0, gt=0, le=30)  # per notification, all parts
    concurrency: int = Field(default=2, ge=1, le=16)  # fetches in flight at once
    # To the API server, all fetches together: a notification costs 1 to 4 requests.
    requests_per_second: float = Field(default=20.0, gt=0, le=100)
    burst: int = Field(default=40, ge=1, le=200)
    log_lines: int = Field(default=20, ge=1, le=200)  # the last lines of each container's log
    log_bytes: int = Field(default=4096, ge=256, le=65536)  # and at most this many bytes
    events: int = Field(default=5, ge=1, le=20)  # the most recent Warning Events
    owner_depth: int = Field(default=4, ge=1, le=8)  # owners followed up the chain
    default_redactions: bool = True  # passwords, tokens, keys: see docs/enrichment.md
    redact: list[RedactionSpec] = Field(default=[], max_length=50)
    changes: ChangesConfig = ChangesConfig()
