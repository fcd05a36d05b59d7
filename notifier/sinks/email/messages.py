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

from notifier.notifications import Facts, Notification
from notifier.sinks import lines
from notifier.sinks.rendering import Part, ReceiverTemplate

_LOG_LINES = 200  # a mail has room: the whole excerpt enrichment fetched, within its bound


def subject(facts: Facts) -> str:
    return f"[{str(facts.get('status', 'firing')).upper()}] {lines.headline(facts)}"


def text(facts: Facts) -> str:
    """The headline, a blank line, then the rest a line at a time (``lines.body_lines``)."""
    return "\n".join([lines.headline(facts), "", *lines.body_lines(facts, log_lines=_LOG_LINES)])


def html_part(facts: Facts) -> str:
    parts = [f"<h3>{html_escaped(lines.headline(facts))}</h3>"]
    details = [line.split(": ", 1) for line in lines.detail_lines(facts)]
    if details:
        rows = "".join(
            f"<tr><th align=left>{html_escaped(label)}</th><td>{html_escaped(value)}</td></tr>"
            for label, value in details
        )
        parts.append(f"<table>{rows}</table>")
    parts += _html_list(lines.member_lines(facts))
    parts += _html_context(facts)
    parts.append(f"<p><small>{html_escaped(lines.footer(facts))}</small></p>")
    return "\n".join(parts)


def _html_list(items: list[str]) -> list[str]:
    if not items:
        return []
    shown = "".join(f"<li>{html_escaped(item.removeprefix('- '))}</li>" for item in items)
    return [f"<ul>{shown}</ul>"]


def _html_context(facts: Facts) -> list[str]:
    """The context's lines: a heading line as a paragraph, its indented lines preformatted."""
    parts: list[str] = []
    block: list[str] = []
    for line in [*lines.context_lines(facts, log_lines=_LOG_LINES), ""]:
        if line.startswith("  "):
            block.append(html_escaped(line[2:]))
            continue
        if block:
            parts.append(f"<pre>{chr(10).join(block)}</pre>")
            block = []
        if line:
            parts.append(f"<p>{html_escaped(line)}</p>")
    return parts


_MAX_SUBJECT = 200
_MIME_HEADERS = frozenset({"Date", "MIME-Version", "Content-Type", "Content-Transfer-Encoding"})


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
    facts = notification.facts
    mail = EmailMessage()
    mail["Subject"] = " ".join(template.render("subject", facts).split())[:_MAX_SUBJECT]
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


PARTS = {
    "subject": Part(subject),
    "text": Part(text),
    "html": Part(html_part, escape=html_escaped),
}


def shown_mail(mail: EmailMessage) -> str:
    """The mail as a person reads it: the headers we set (the date aside), each part decoded."""
    headers = [f"{name}: {value}" for name, value in mail.items() if name not in _MIME_HEADERS]
    parts = [
        f"--- {part.get_content_type()} ---\n{part.get_content().rstrip()}"
        for part in mail.walk()
        if not part.is_multipart()
    ]
    return "\n".join([*headers, "", *parts]) + "\n"
