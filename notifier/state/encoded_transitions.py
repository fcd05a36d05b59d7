"""Transitions as msgspec JSON in the state database: the held members, incidents and
``for:`` timers store them so; decoded through the config's kinds."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import msgspec

from notifier.kinds.registry import Kinds
from notifier.objects import Kind
from notifier.transitions.model import Transition


def _kind_as_text(value: Any) -> Any:
    if isinstance(value, Kind):
        return str.__str__(value)
    raise NotImplementedError(f"cannot encode {type(value).__name__}")


def _text_as_kind(wanted: type, value: Any) -> Any:
    if wanted is Kind and isinstance(value, str):
        return Kind(value)
    raise NotImplementedError(f"cannot decode {wanted.__name__}")


_encoder = msgspec.json.Encoder(enc_hook=_kind_as_text)


def encode_transition(transition: Transition) -> bytes:
    return _encoder.encode(transition)


def decode_transition(encoded: bytes, *, kinds: Kinds) -> Transition:
    """A transition back; its objects through the config's kinds, which know their Structs."""
    data = msgspec.json.decode(encoded)
    if not isinstance(data, dict):
        raise msgspec.ValidationError("expected a transition object")
    old, new = data.get("old"), data.get("new")
    blank = {**data, "old": None, "new": None}
    transition = msgspec.convert(blank, type=Transition, dec_hook=_text_as_kind)
    return replace(
        transition,
        old=None if old is None else kinds.convert_object(old),
        new=None if new is None else kinds.convert_object(new),
    )
