"""The named templates of a config, on top of the built-in ones.

Templates are referred to by name (``template: short``) or written inline
in a rule. A template may leave out parts; each missing part is taken from
the template named ``default`` (for messages about one transition) or
``digest`` (for group digests), which a config may itself redefine; what
they leave out comes from the built-in templates
(``default_templates.yaml``).

A template is compiled for the *role* it is used in, since the two roles
see different variables: a typo such as ``{{ contianer }}`` is an error at
load, with the key path of the part that has it.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from functools import cache
from importlib import resources

import yaml

from notifier.rules.config import TemplateSpec
from notifier.rules.errors import KeyPath, RuleProblems
from notifier.rules.facts import DIGEST_NAMES, SINGLE_NAMES
from notifier.templating.compiling import CompiledTemplate, Render, TemplateCompiler
from notifier.templating.environment import make_environment
from notifier.text import mrkdwn_escaped

_PARTS = ("text", "blocks", "payload")


class Role(StrEnum):
    SINGLE = "single"
    DIGEST = "digest"
    ANY = "any"  # a template no rule uses: checked against the variables of both roles

    @property
    def base(self) -> str:
        """The template that parts missing in this role are taken from."""
        return "digest" if self is Role.DIGEST else "default"


_NAMES = {
    Role.SINGLE: SINGLE_NAMES,
    Role.DIGEST: DIGEST_NAMES,
    Role.ANY: SINGLE_NAMES | DIGEST_NAMES,
}


@cache
def builtin_specs() -> Mapping[str, TemplateSpec]:
    text = resources.files("notifier.rules").joinpath("default_templates.yaml").read_text("utf-8")
    return {name: TemplateSpec.model_validate(spec) for name, spec in yaml.safe_load(text).items()}


def builtin_template(role: Role) -> CompiledTemplate:
    """The built-in template of ``role``: every part present, checked by the tests."""
    return _compiled_builtin(role.base, role)


@cache
def _compiled_builtin(name: str, role: Role) -> CompiledTemplate:
    """Built-ins compile once per process, not once per load: Jinja compiling is slow."""
    problems = RuleProblems()
    compiled = TemplateLibrary({}, problems, share_builtins=False).named(
        name, ("<built-in>",), role
    )
    problems.raise_if_any()
    assert compiled is not None
    return compiled


class TemplateLibrary:
    def __init__(
        self,
        templates: Mapping[str, TemplateSpec],
        problems: RuleProblems,
        *,
        share_builtins: bool = True,
    ) -> None:
        self._user = dict(templates)
        self._share_builtins = share_builtins
        self._problems = problems
        self._compiler = TemplateCompiler(make_environment(), problems)
        # Blocks are Slack mrkdwn: what expressions put in them is escaped, the markup
        # the template writes is not (notifier/text.py).
        self._blocks = TemplateCompiler(make_environment(mrkdwn_escaped), problems, mrkdwn_escaped)
        self._compiled: dict[tuple[str, Role], CompiledTemplate | None] = {}

    def names(self) -> frozenset[str]:
        return frozenset(builtin_specs()) | frozenset(self._user)

    def named(self, name: str, path: KeyPath, role: Role) -> CompiledTemplate | None:
        """The template called ``name`` for ``role``; ``path`` is where it is referred to."""
        if name not in self.names():
            known = ", ".join(sorted(self.names()))
            self._problems.add(path, f"unknown template {name!r} (defined: {known})")
            return None
        if self._share_builtins and name not in self._user:
            return _compiled_builtin(name, role)
        if (name, role) not in self._compiled:
            spec, where = self._lookup(name)
            self._compiled[name, role] = self._compile(name, spec, where, role)
        return self._compiled[name, role]

    def inline(self, spec: TemplateSpec, path: KeyPath, role: Role) -> CompiledTemplate | None:
        return self._compile(f"<inline at {path}>", spec, path, role)

    def check_unused(self, used: set[str]) -> None:
        """Compile user templates no rule refers to, so their errors still show."""
        for name in sorted(set(self._user) - used):
            self.named(name, ("templates", name), Role.ANY)

    def _lookup(self, name: str) -> tuple[TemplateSpec, KeyPath]:
        if name in self._user:
            return self._user[name], ("templates", name)
        return builtin_specs()[name], ("<built-in>", name)

    def _compile(
        self, name: str, spec: TemplateSpec, where: KeyPath, role: Role
    ) -> CompiledTemplate | None:
        parts = {part: self._part(spec, part, where, role) for part in _PARTS}
        if any(render is None for render in parts.values()):
            return None
        return CompiledTemplate(name, *(_present(parts[part]) for part in _PARTS))

    def _part(self, spec: TemplateSpec, part: str, where: KeyPath, role: Role) -> Render | None:
        value = getattr(spec, part)
        if value is None:
            return self._inherited(part, where, role)
        names = _NAMES[role]
        if part == "text":
            return self._compiler.text(value, (*where, part), names)
        compiler = self._blocks if part == "blocks" else self._compiler
        return compiler.shape(value, (*where, part), names)

    def _inherited(self, part: str, where: KeyPath, role: Role) -> Render | None:
        base_name = role.base
        if where[-1] == base_name:  # the base itself lacks the part: take the built-in one
            builtin = builtin_specs()[base_name]
            return self._part(builtin, part, ("<built-in>", base_name), role)
        base = self.named(base_name, where, role)
        return None if base is None else getattr(base, part)


def _present(render: Render | None) -> Render:
    assert render is not None
    return render
