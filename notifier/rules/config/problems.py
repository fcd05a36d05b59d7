"""Problems found while compiling rules, each tied to the key path it is about.

The compiler never stops at the first problem: it adds each one to a
``RuleProblems`` and raises ``RulesError`` at the end with all of them.
The config loader turns key paths into file, line and column.
"""

from __future__ import annotations

from notifier.records import record
from notifier.suggestions import Wording

KeyPath = tuple[str | int, ...]


@record
class RuleProblem:
    path: KeyPath
    wording: Wording  # its "did you mean" worked out when shown (notifier.suggestions)

    @property
    def message(self) -> str:
        return str(self.wording)


class RuleProblems:
    def __init__(self) -> None:
        self.items: list[RuleProblem] = []
        self._seen: set[RuleProblem] = set()

    def add(self, path: KeyPath, message: Wording) -> None:
        problem = RuleProblem(path, message)
        if problem not in self._seen:  # a shared template is checked once per user
            self._seen.add(problem)
            self.items.append(problem)

    def raise_if_any(self) -> None:
        if self.items:
            raise RulesError(tuple(self.items))


class RulesError(ValueError):
    def __init__(self, problems: tuple[RuleProblem, ...]) -> None:
        super().__init__(problems)
        self.problems = problems

    def __str__(self) -> str:
        return "; ".join(f"{format_path(p.path)}: {p.message}" for p in self.problems)


def format_path(path: KeyPath) -> str:
    """``rules[2].match.namespaces[0]``: how a key path is written in messages."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text
