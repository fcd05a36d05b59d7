"""Why a part of the context could not be had: said in the message, never raised past it."""

from __future__ import annotations


class FetchError(Exception):
    """One part (or one container's log) could not be fetched: the reason, for the message."""
