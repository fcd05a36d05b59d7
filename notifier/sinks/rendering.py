"""A receiver's body in parts: each built by the receiver from the facts, each replaceable.

A receiver names its parts (``summary``, ``description``, ``subject``,
``blocks``, ``payload`` ...), each built by its own code from a
notification's facts (``Notification.facts``). A sink's ``template:`` may
replace any of them with a template of the one engine (``notifier.templating``):
text for a text part, a structure whose strings are templates for a
structured one (Slack's ``blocks``, the webhook's ``payload``). A part it
names that the receiver has not, a template that does not compile or a
variable facts never hold fails the build (``SinkBuildError``, at load, with
the sink and the part's key path). A part that fails to render (a sandbox
refusal, a variable a digest lacks) is the receiver's own.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, NoReturn

from notifier.notifications import FACT_NAMES, Facts
from notifier.sinks.secrets import SinkBuildError

# The template engine (jinja2) is imported once a sink has a template of its own: rules
# check of a file whose sinks have none imports none of it.
if TYPE_CHECKING:
    from notifier.templating.compiling import KeyPath, Render
    from notifier.templating.environment import Escape
    from notifier.templating.sandbox import BoundedSandbox

log = logging.getLogger("notifier.sinks")
_BLANK_LINES = re.compile(r"\n{3,}")


def as_text(value: Any) -> str:
    """A rendered text part: trailing spaces, outer blank lines and runs of blank lines out."""
    lines = (line.rstrip() for line in str(value).strip().splitlines())
    return _BLANK_LINES.sub("\n\n", "\n".join(lines))


@dataclass(frozen=True, slots=True)
class Part:
    """One part of a body: ``built`` by the receiver; ``shaped`` when a template of it is a
    structure; ``escape`` and ``filters`` for what the user's template prints; ``fit`` makes
    what it rendered the part's type, raising ``TypeError`` when it cannot."""

    built: Callable[[Facts], Any]
    shaped: bool = False
    escape: Escape | None = None
    filters: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    fit: Callable[[Any], Any] = as_text


class _Raise:
    def __init__(self, sink: str) -> None:
        self._sink = sink

    def add(self, path: KeyPath, message: str) -> NoReturn:
        where = ".".join(str(step) for step in path)
        raise SinkBuildError(f"sink {self._sink!r}: {where}: {message}")


class ReceiverTemplate:
    """A receiver's parts, with the sink's ``template:`` (``user``) over them."""

    def __init__(self, sink: str, parts: Mapping[str, Part], user: Mapping[str, Any]) -> None:
        self._sink = sink
        self._parts = dict(parts)
        self._user = {name: self._compiled(name, source) for name, source in user.items()}

    def render(self, name: str, facts: Facts) -> Any:
        """Part ``name`` from ``facts``: the user's template, else (or if it fails) the built."""
        part, user = self._parts[name], self._user.get(name)
        if user is not None:
            from notifier.templating.sandbox import render_budget  # noqa: PLC0415 - see the imports

            try:
                with render_budget():
                    return part.fit(user(facts))
            except Exception as err:  # a sandbox refusal, a fact a digest lacks: the built one
                log.debug("sink %s: template part %s failed: %s", self._sink, name, err)
        return part.built(facts)

    def _compiled(self, name: str, source: Any) -> Render:
        path: KeyPath = ("template", name)
        problems, part = _Raise(self._sink), self._parts.get(name)
        if part is None:
            problems.add(path, f"unknown part (this receiver has {', '.join(self._parts)})")
        if not part.shaped and not isinstance(source, str):
            problems.add(path, "expected a template: a string")
        from notifier.templating.compiling import TemplateCompiler  # noqa: PLC0415 - see the imports

        compiler = TemplateCompiler(_environment(part), problems, part.escape)
        compile_part = compiler.shape if part.shaped else compiler.text
        render = compile_part(source, path, FACT_NAMES)
        assert render is not None  # else a problem was added, and adding one raised
        return render


def _environment(part: Part) -> BoundedSandbox:
    return _made(part.escape, tuple(part.filters.items()))


@cache
def _made(
    escape: Escape | None, filters: tuple[tuple[str, Callable[..., Any]], ...]
) -> BoundedSandbox:
    """One environment per escape and filters: making one costs a millisecond."""
    from notifier.templating.environment import make_environment  # noqa: PLC0415 - see the imports

    return make_environment(escape, dict(filters))
