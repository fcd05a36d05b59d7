"""A receiver's own template: its built-in parts, each replaceable by the user's ``template:``.

A receiver that renders from a notification's facts (``Notification.facts``)
names its parts (``summary``, ``description``, ``subject`` ...) with a
built-in Jinja template each. A sink's ``template:`` may replace any of them;
a part it names that the receiver has not, or a variable facts never hold,
fails the build (``SinkBuildError``, at load). Rendering runs in the bounded
sandbox; a part that fails falls back to the built-in part, then to the
facts' ``summary``, so a message is still sent.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Callable, Mapping
from functools import cache

import jinja2
from jinja2 import meta

from notifier.notifications import FACT_NAMES, Facts
from notifier.sinks.secrets import SinkBuildError
from notifier.templating.environment import Escape, make_environment
from notifier.templating.sandbox import BoundedSandbox, render_budget

log = logging.getLogger("notifier.sinks")
Part = Callable[[Facts], str]


@cache
def _environment(escape: Escape | None = None) -> BoundedSandbox:
    return make_environment(escape)


@cache
def _compiled_builtin(source: str, escape: Escape | None) -> jinja2.Template:
    return _environment(escape).from_string(source)


class ReceiverTemplate:
    """``escaped``: parts whose ``{{ }}`` output goes through an escape (HTML, markup)."""

    def __init__(
        self,
        sink: str,
        builtin: Mapping[str, str],
        user: Mapping[str, str],
        *,
        escaped: Mapping[str, Escape] | None = None,
    ) -> None:
        self._sink = sink
        self._escapes = dict(escaped or {})
        self._builtin = {
            part: _compiled_builtin(source, self._escapes.get(part))
            for part, source in builtin.items()
        }
        self._user = {part: self._compiled(part, source, builtin) for part, source in user.items()}

    def render(self, part: str, facts: Facts) -> str:
        """``part`` rendered from ``facts``: the user's, else the built-in, else the summary."""
        for template in (self._user.get(part), self._builtin[part]):
            if template is None:
                continue
            try:
                with render_budget():
                    return template.render(facts).strip()
            except Exception as err:  # a sandbox refusal, a missing fact: the next one
                log.debug("sink %s: template part %s failed: %s", self._sink, part, err)
        return str(facts.get("summary", ""))

    def _compiled(self, part: str, source: str, builtin: Mapping[str, str]) -> jinja2.Template:
        where = f"sink {self._sink!r}: template.{part}"
        if part not in builtin:
            raise SinkBuildError(f"{where}: unknown part (this receiver has {', '.join(builtin)})")
        try:
            environment = _environment(self._escapes.get(part))
            tree = environment.parse(source)
        except jinja2.TemplateSyntaxError as err:
            raise SinkBuildError(f"{where}: does not compile: line {err.lineno}: {err}") from None
        for name in sorted(meta.find_undeclared_variables(tree) - FACT_NAMES):
            close = difflib.get_close_matches(name, sorted(FACT_NAMES), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise SinkBuildError(f"{where}: uses unknown variable {name!r}{hint}")
        return environment.from_string(tree)
