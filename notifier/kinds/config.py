"""``watch.resources``: custom resources to watch, and how their states read from their fields.

A state is either a condition (``condition: Ready``, holding while its
status is ``status``, ``"True"`` unless said) or a field equal to a value
(``field: status.phase``, ``equals: Failed``). ``message`` names where a
message's reason and text come from: a condition (its reason and message)
or a field (its text). Paths are the API's field names, dotted. Every
problem is found at load, with its place in the file.
"""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from notifier.objects import Kind

PATH_PATTERN = r"^[a-z][A-Za-z0-9]*(\.[a-zA-Z][A-Za-z0-9]*){0,7}$"
PLURAL_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
GROUP_PATTERN = r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StateSpec(_Strict):
    condition: str | None = Field(default=None, pattern=r"^[A-Za-z][A-Za-z0-9]{0,62}$")
    status: str = "True"
    field: str | None = Field(default=None, pattern=PATH_PATTERN)
    equals: str | int | float | bool | None = None

    @model_validator(mode="after")
    def _one_source(self) -> Self:
        if (self.condition is None) == (self.field is None):
            raise ValueError("give either 'condition' or 'field' (with 'equals')")
        if self.field is not None and self.equals is None:
            raise ValueError("'field' needs 'equals': the value the state holds at")
        return self


class MessageSpec(_Strict):
    condition: str | None = Field(default=None, pattern=r"^[A-Za-z][A-Za-z0-9]{0,62}$")
    field: str | None = Field(default=None, pattern=PATH_PATTERN)

    @model_validator(mode="after")
    def _one_source(self) -> Self:
        if (self.condition is None) == (self.field is None):
            raise ValueError("give either 'condition' or 'field'")
        return self


class ResourceSpec(_Strict):
    """One custom resource (or any built-in API resource without a module of its own)."""

    kind: Kind
    group: str = Field(default="", pattern=GROUP_PATTERN, max_length=253)
    version: str = Field(pattern=r"^v[0-9]+((alpha|beta)[0-9]+)?$")
    resource: str = Field(pattern=PLURAL_PATTERN, max_length=63)  # the plural, as in RBAC
    namespaced: bool = True
    states: dict[str, StateSpec] = Field(default_factory=dict, max_length=32)
    message: MessageSpec | None = None
    critical: list[str] = []
    warning: list[str] = []

    @field_validator("states")
    @classmethod
    def _state_names(cls, states: dict[str, StateSpec]) -> dict[str, StateSpec]:
        for name in states:
            if not name or not name[0].isupper() or not name.isalnum() or len(name) > 63:
                raise ValueError(f"state {name!r}: a name like Ready or Failed (letters, digits)")
        return states

    @model_validator(mode="after")
    def _severities_name_states(self) -> Self:
        unknown = sorted(set(self.critical + self.warning) - set(self.states))
        if unknown:
            raise ValueError(f"critical/warning name states not under 'states': {unknown}")
        return self

    def paths(self) -> list[str]:
        """Every field path the states and the message read (conditions included)."""
        used = [state.field for state in self.states.values() if state.field]
        if self.message is not None and self.message.field:
            used.append(self.message.field)
        if self.uses_conditions():
            used.append("status.conditions")
        return list(dict.fromkeys(used))

    def uses_conditions(self) -> bool:
        named = [state.condition for state in self.states.values()]
        return any(named) or (self.message is not None and self.message.condition is not None)


def describe(spec: StateSpec) -> str:
    """The ``Holds while`` text of a state, for docs and ``rules check``."""
    if spec.condition is not None:
        return f"`status.conditions[{spec.condition}]` is `{spec.status}`"
    return f"`{spec.field}` is `{_shown(spec.equals)}`"


def _shown(value: Any) -> str:
    return "true" if value is True else "false" if value is False else str(value)
