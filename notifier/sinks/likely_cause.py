"""What ``enrich: [changes]`` found, as the receivers that render from facts show it.

The facts hold it under ``context.changes`` (``likely_cause``, ``lines`` and
the fields behind them: docs/enrichment.md). Every text receiver shows the
likely cause and its lines among the context (``lines.context_lines``);
the receivers with fields of their own (e.g. Alertmanager's annotations,
PagerDuty's custom details) also give it those (``cause_fields``), and
Slack a context block (``slack/blocks.py``).
"""

from __future__ import annotations

from notifier.notifications import Facts

_MOST = 4000  # characters of the lines in one field


def cause_fields(facts: Facts) -> dict[str, str]:
    """``likely_cause`` and ``changes`` (its lines), or nothing when no changes were asked for."""
    context = facts.get("context")
    found = context.get("changes") if isinstance(context, dict) else None
    if not isinstance(found, dict):
        return {}
    lines = "\n".join(str(line) for line in found.get("lines", []))
    fields = {"likely_cause": str(found.get("likely_cause", ""))[:_MOST], "changes": lines[:_MOST]}
    return {name: value for name, value in fields.items() if value}
