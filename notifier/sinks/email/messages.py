"""The mail itself: subject, a text and an HTML part, and the headers that thread it.

Every mail about one fingerprint (a rule and an object) is one thread: the
first one's ``Message-ID`` is remembered (``ThreadStore``), and each later
mail, its resolution included, names it in ``In-Reply-To`` and
``References``. A ``Message-ID`` is made from the notification id, so a
retried send is the same mail. Object content is escaped in the HTML part.
"""

from __future__ import annotations

import html
from datetime import UTC, datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Any

from notifier.notifications import Notification
from notifier.sinks.likely_cause import CAUSE_HTML, CAUSE_TEXT
from notifier.sinks.rendering import ReceiverTemplate

BUILTIN_TEMPLATE = {
    "subject": "[{{ status | upper }}] {{ summary }}",
    "text": (
        "{{ summary }}\n"
        "{% if transition is defined %}\n{{ transition }}\n{% endif %}"
        "{% for label, value in details | default([]) %}{{ label }}: {{ value }}\n{% endfor %}"
        "{% for member in members | default([]) %}- {{ member.kind }} {{ member.key }}:"
        " {{ member.transition }}\n{% endfor %}"
        f"{CAUSE_TEXT}"
        "{% for log in (context | default({})).get('logs', []) %}\n{{ log.container }} log:\n"
        "{{ log.lines | join('\n') }}\n{% endfor %}"
        "\nrule {{ rule }} · {{ severity }}{% if observed_at %} · {{ observed_at }}{% endif %}"
    ),
    "html": (
        "<h3>{{ summary }}</h3>"
        "{% if transition is defined %}<p>{{ transition }}</p>{% endif %}"
        "{% if details is defined and details %}<table>{% for label, value in details %}"
        "<tr><th align=left>{{ label }}</th><td>{{ value }}</td></tr>{% endfor %}</table>"
        "{% endif %}"
        "{% if members is defined %}<ul>{% for member in members %}<li>{{ member.kind }}"
        " {{ member.key }}: {{ member.transition }}</li>{% endfor %}</ul>{% endif %}"
        f"{CAUSE_HTML}"
        "{% for log in (context | default({})).get('logs', []) %}<p>{{ log.container }} log:</p>"
        "<pre>{{ log.lines | join('\n') }}</pre>{% endfor %}"
        "<p><small>rule {{ rule }} · {{ severity }}</small></p>"
    ),
}
_MAX_SUBJECT = 200


def html_escaped(value: Any) -> str:
    return html.escape(str(value))


def message_id(notification_id: str, domain: str) -> str:
    return f"<{notification_id}@{domain}>"


def compose(
    notification: Notification,
    template: ReceiverTemplate,
    *,
    sender: str,
    to: list[str],
    root: str | None,
    domain: str,
) -> EmailMessage:
    facts = notification.facts or {"summary": notification.message.text}
    mail = EmailMessage()
    subject = " ".join(template.render("subject", facts).split())[:_MAX_SUBJECT]
    mail["Subject"] = subject
    mail["From"] = Address(addr_spec=sender)
    mail["To"] = ", ".join(to)
    mail["Date"] = format_datetime(datetime.now(UTC))
    mail["Message-ID"] = message_id(notification.id, domain)
    if root is not None:
        mail["In-Reply-To"] = root
        mail["References"] = root
    mail["X-Kube-Notifier-Fingerprint"] = notification.fingerprint or "none"
    mail["X-Kube-Notifier-Status"] = notification.status
    mail.set_content(template.render("text", facts) + "\n")
    mail.add_alternative(template.render("html", facts), subtype="html")
    return mail
