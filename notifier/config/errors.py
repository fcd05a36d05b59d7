"""Located config problems: file, line:column, key path, and what was expected.

``ConfigError`` carries every problem found in one file (loading never
stops at the first). Warnings use the same ``ConfigIssue`` shape with
``severity="warning"`` and never fail a load. A message's "did you mean" is
worked out when the issue is shown (``notifier.suggestions``): a report of
20,000 errors shows 50.
"""

from __future__ import annotations

from typing import Literal

from notifier.records import record
from notifier.suggestions import Wording, text_before

Severity = Literal["error", "warning"]
MAX_SHOWN = 50  # a file with thousands of errors: the first ones say enough


@record
class ConfigIssue:
    source: str  # the file name (or "<configmap kube-system/kube-notifier>")
    line: int | None  # 1-based; None when the problem has no place in the text
    column: int | None
    path: str  # "rules[2].match.kinds[0]", or "" for the document itself
    wording: Wording
    severity: Severity = "error"

    @property
    def message(self) -> str:
        return str(self.wording)

    def __str__(self) -> str:
        where = self.source
        if self.line is not None:
            where += f":{self.line}:{self.column}"
        about = f" {self.path}:" if self.path else ""
        label = "" if self.severity == "error" else " warning:"
        return f"{where}:{label}{about} {self.message}"


class ConfigError(Exception):
    """The config cannot be used; ``issues`` lists every error, in file order."""

    def __init__(self, issues: list[ConfigIssue]) -> None:
        self.issues = tuple(sorted(issues, key=_order))
        count = len(self.issues)
        header = f"{count:,} error{'s' if count != 1 else ''} in config"
        shown = [str(issue) for issue in self.issues[:MAX_SHOWN]]
        if count > MAX_SHOWN:
            shown.append(f"... and {count - MAX_SHOWN:,} more")
        super().__init__("\n".join([header, *shown]))


def _order(issue: ConfigIssue) -> tuple[int, int, str]:
    return (issue.line or 0, issue.column or 0, text_before(issue.wording))
