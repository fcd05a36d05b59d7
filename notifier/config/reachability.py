"""Rules that could never fire: errors, not silence.

A rule is compiled against every known kind, but the service only sees the
kinds ``watch`` lists. So a rule naming a kind that is not watched, or a
state or signal only unwatched kinds have, passes every other check and
then never matches. Likewise ``thread_by`` on a Slack sink that cannot
thread (an incoming ``webhook_url``, or ``threads: false``) is ignored at
send time. ``unreachable`` finds these, each with the key path to point at.

We refuse rather than widen the watch to follow the rules: what is watched
decides what the service lists and what RBAC the chart grants, and both
should stay what the file says.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from notifier.config.model import Config
from notifier.kinds.registry import Kinds
from notifier.objects import Kind
from notifier.rules.config.problems import KeyPath
from notifier.rules.config.specs import MatchSpec
from notifier.rules.matching.match_compiler import vocabulary
from notifier.sinks.slack.config import SlackSinkConfig

Finding = tuple[KeyPath, str]


def unreachable(config: Config, *, kinds: Kinds) -> list[Finding]:
    watched = _Watched(frozenset(config.watch.watched()), kinds)
    found: list[Finding] = []
    for index, rule in enumerate(config.rules):
        path: KeyPath = ("rules", index)
        match = rule.match
        if match.kinds or match.to or match.from_states:  # what can name an unwatched kind
            found.extend(_match_findings(match, (*path, "match"), watched))
        if rule.thread_by is not None:
            sinks = rule.sinks or config.defaults.sinks
            found.extend(_thread_findings(config, sinks, (*path, "thread_by"), rule.thread_by))
    for index, inhibit in enumerate(config.inhibit_rules):
        for side in ("source", "target"):
            where: KeyPath = ("inhibit_rules", index, side)
            found.extend(_match_findings(getattr(inhibit, side), where, watched))
    return found


class _Watched:
    """The kinds watched, the kinds known and the words of the watched ones, made once."""

    def __init__(self, kinds: frozenset[Kind], registry: Kinds) -> None:
        self.kinds = kinds
        self.registry = registry
        self.known = registry.all
        self.words = vocabulary(registry, kinds & self.known).names


def _match_findings(match: MatchSpec, path: KeyPath, watched: _Watched) -> Iterator[Finding]:
    known, registry = watched.known, watched.registry
    for position, kind in enumerate(match.kinds):
        if kind in known and kind not in watched.kinds:
            yield (*path, "kinds", position), _not_watched(kind, watched.kinds)
    if match.kinds:
        return  # words of the kinds named are checked by the compiler
    for key, words in (("to", match.to), ("from", match.from_states)):
        for position, word in enumerate(words):
            owners = sorted(kind for kind in known if word in registry.names_for(kind))
            if owners and word not in watched.words:
                yield (*path, key, position), _word_not_watched(word, owners, watched.kinds)


def _not_watched(kind: Kind, watched: frozenset[Kind]) -> str:
    return (
        f"{kind} is not watched, so this rule can never match it: add {kind} to watch.kinds "
        f"(watched now: {_listed(watched)})"
    )


def _word_not_watched(word: str, owners: Sequence[str], watched: frozenset[Kind]) -> str:
    return (
        f"{word!r} belongs to {'/'.join(owners)}, which is not watched, so this rule can never "
        f"match it: add the kind to watch.kinds (watched now: {_listed(watched)})"
    )


def _listed(kinds: frozenset[Kind]) -> str:
    return ", ".join(sorted(kinds)) or "none"


def _thread_findings(
    config: Config, sinks: Sequence[str], path: KeyPath, thread_by: str
) -> Iterator[Finding]:
    by_name = {sink.name: sink for sink in config.sinks}
    for name in dict.fromkeys(sinks):
        sink = by_name.get(name)
        if not isinstance(sink, SlackSinkConfig):
            continue
        if not sink.uses_bot_token:
            why = "posts through webhook_url, and Slack's incoming webhooks cannot thread"
            fix = "use a bot token and channel"
        elif not sink.threads:
            why, fix = "has threads: false", "remove threads: false"
        else:
            continue
        yield path, f"thread_by: {thread_by} cannot be honoured: sink {name!r} {why} ({fix})"
