"""What ``enrich: [changes]`` found, as the receivers that render from facts show it.

The facts hold it under ``context.changes`` (``likely_cause``, ``lines`` and
the fields behind them: docs/enrichment.md). The chat receivers and email
put the likely cause and its lines in their text; Alertmanager, PagerDuty
and Opsgenie also give it a field of its own (``cause_fields``).
"""

from __future__ import annotations

from notifier.notifications import Facts

_MOST = 4000  # characters of the lines in one field

CAUSE_TEXT = (
    "{% set found = (context | default({})).get('changes') or {} %}"
    "{% if found %}Likely cause: {{ found.likely_cause }}\n"
    "{% for line in found.lines %}  {{ line }}\n{% endfor %}{% endif %}"
)
CAUSE_HTML = (
    "{% set found = (context | default({})).get('changes') or {} %}"
    "{% if found %}<p><b>Likely cause:</b> {{ found.likely_cause }}</p>"
    "<ul>{% for line in found.lines %}<li>{{ line }}</li>{% endfor %}</ul>{% endif %}"
)


def cause_fields(facts: Facts) -> dict[str, str]:
    """``likely_cause`` and ``changes`` (its lines), or nothing when no changes were asked for."""
    context = facts.get("context")
    found = context.get("changes") if isinstance(context, dict) else None
    if not isinstance(found, dict):
        return {}
    lines = "\n".join(str(line) for line in found.get("lines", []))
    fields = {"likely_cause": str(found.get("likely_cause", ""))[:_MOST], "changes": lines[:_MOST]}
    return {name: value for name, value in fields.items() if value}
