""" "Did you mean ...?": the allowed word nearest a wrong one, worked out only when it is shown.

A config of 20,000 misspelt rules has 20,000 errors, of which ``rules check``
prints 50; difflib's nearest match is most of what refusing it costs. So a
message that suggests a word is a ``Suggesting``: its text around the
suggestion is fixed, and the suggestion itself is looked for when the
message is first turned into text (and remembered per word and choices).
``Wording`` is what a config problem's message may be: plain text, or one of these.
"""

from __future__ import annotations

import difflib
import functools

from notifier.records import record


@record
class Suggesting:
    """``before`` + " (did you mean 'x'?)" when a choice is near ``word`` + ``after``."""

    before: str
    word: str
    choices: tuple[str, ...]
    after: str = ""
    folded: bool = False  # case and a plural 's' ignored first: 'pods' means 'Pod'

    def __str__(self) -> str:
        return (
            f"{self.before}{did_you_mean(self.word, self.choices, folded=self.folded)}{self.after}"
        )


Wording = str | Suggesting


def text_before(wording: Wording) -> str:
    """What a message says before any suggestion: enough to order messages without one."""
    return wording if isinstance(wording, str) else wording.before


@functools.lru_cache(maxsize=4096)
def did_you_mean(word: str, choices: tuple[str, ...], *, folded: bool = False) -> str:
    """`` (did you mean 'x'?)``, or "" when no choice is near."""
    close = _folded(word, choices) if folded else None
    found = [close] if close else difflib.get_close_matches(word, choices, n=1)
    return f" (did you mean {found[0]!r}?)" if found else ""


def _folded(word: str, choices: tuple[str, ...]) -> str | None:
    folded = {choice.lower(): choice for choice in choices}
    lowered = word.lower()
    return folded.get(lowered) or folded.get(lowered.removesuffix("s"))
