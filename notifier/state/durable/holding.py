"""The rules' ``Holding`` kept in the state database: held transitions as msgspec JSON."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import msgspec

from notifier.kinds.registry import KINDS, Kinds
from notifier.objects import Kind
from notifier.rules.holding import Held
from notifier.state import HeldMembers, HeldRow
from notifier.transitions.model import Transition

log = logging.getLogger("notifier.service")


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


def decode_transition(encoded: bytes, kinds: Kinds = KINDS) -> Transition:
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


class DurableHolding:
    def __init__(self, members: HeldMembers, kinds: Kinds = KINDS) -> None:
        self._members = members
        self._kinds = kinds

    def held(self) -> list[Held]:
        restored, unreadable = [], []
        for row in self._members.all_held():
            try:
                restored.append(
                    Held(
                        row.token,
                        row.rule,
                        decode_transition(row.encoded, self._kinds),
                        row.held_at,
                    )
                )
            except msgspec.DecodeError as err:  # ValidationError is a DecodeError
                log.warning(
                    "held member %d of rule %r is unreadable (%s)", row.token, row.rule, err
                )
                unreadable.append(row.token)
        if unreadable:
            self._members.forget(unreadable)
        return restored

    def hold(self, member: Held) -> None:
        encoded = encode_transition(member.transition)
        self._members.hold(HeldRow(member.token, member.rule, encoded, member.held_at))

    def forget(self, tokens: Sequence[int]) -> None:
        self._members.forget(tokens)
