"""The email receiver against a real SMTP server (aiosmtpd on 127.0.0.1): STARTTLS or TLS with
auth, a text and an HTML part, one thread per fingerprint, and failures classified without
saying the password."""

from __future__ import annotations

import dataclasses
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from notifier.sinks.base import SendError
from notifier.sinks.email.building import build_email
from notifier.sinks.email.config import EmailSinkConfig
from notifier.sinks.email.sink import EmailSink
from notifier.sinks.thread_roots import MemoryThreads
from tests.controlplane.certs import Pki, make_pki
from tests.support.smtp_server import SmtpServer, free_port
from tests.unit.sinks.told import firing_and_resolved

FIRING, RESOLVED = firing_and_resolved(
    {"type": "email", "host": "127.0.0.1", "from": "kn@example.org", "to": ["oncall@example.org"]}
)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


def _server_tls(pki: Pki) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(pki.serving_cert, pki.serving_key)
    return context


@pytest.fixture
def starttls(pki: Pki) -> Iterator[SmtpServer]:
    with SmtpServer(tls=_server_tls(pki), users={"kn": "pa55word"}) as server:
        yield server


def _sink(port: int, pki: Pki | None, **extra: Any) -> EmailSink:
    settings = {
        "name": "mail", "type": "email", "host": "127.0.0.1", "port": port,
        "from": "kn@example.org", "to": ["oncall@example.org", "sre@example.org"],
        "username": "kn", "password": "pa55word", "timeout_seconds": 5,
        **({"ca_file": str(pki.ca_cert)} if pki else {}), **extra,
    }  # fmt: skip
    return build_email(EmailSinkConfig.model_validate(settings), MemoryThreads())


def test_a_firing_and_its_resolution_are_one_thread(starttls: SmtpServer, pki: Pki) -> None:
    sink = _sink(starttls.port, pki)
    sink.send(FIRING)
    sink.send(RESOLVED)
    first, second = starttls.mails()
    assert first["Subject"].startswith("[FIRING] [prod-eu] Pod shop/web-7d4b9c6f5d-x2x9q")
    assert second["Subject"].startswith("[RESOLVED] [prod-eu] Pod shop/web-7d4b9c6f5d-x2x9q")
    assert first["In-Reply-To"] is None
    assert second["In-Reply-To"] == second["References"] == first["Message-ID"]
    assert first["To"] == "oncall@example.org, sre@example.org"
    assert first["X-Kube-Notifier-Fingerprint"] == FIRING.fingerprint
    assert first.get_content_type() == "multipart/alternative"
    text = first.get_body(("plain",))
    html = first.get_body(("html",))
    assert text is not None and html is not None
    assert "CrashLoopBackOff" in text.get_content()
    assert "<h3>[prod-eu] Pod shop/web-7d4b9c6f5d-x2x9q" in html.get_content()


def test_a_retried_send_is_the_same_mail(starttls: SmtpServer, pki: Pki) -> None:
    sink = _sink(starttls.port, pki)
    sink.send(FIRING)
    sink.send(FIRING)
    first, again = starttls.mails()
    assert first["Message-ID"] == again["Message-ID"]


def test_object_text_is_escaped_in_the_html_part(starttls: SmtpServer, pki: Pki) -> None:
    facts = {**(FIRING.facts or {}), "summary": "<script>alert(1)</script>"}
    _sink(starttls.port, pki).send(dataclasses.replace(FIRING, facts=facts))
    [mail] = starttls.mails()
    html = mail.get_body(("html",))
    assert html is not None
    assert "<script>" not in html.get_content() and "&lt;script&gt;" in html.get_content()


def test_tls_from_the_start(pki: Pki) -> None:
    with SmtpServer(tls=_server_tls(pki), implicit_tls=True, users={"kn": "pa55word"}) as server:
        _sink(server.port, pki, security="tls").send(FIRING)
        assert len(server.mails()) == 1


def test_a_wrong_password_is_permanent_and_never_said(starttls: SmtpServer, pki: Pki) -> None:
    with pytest.raises(SendError) as caught:
        _sink(starttls.port, pki, password="wrong-s3cret").send(FIRING)
    assert (caught.value.reason, caught.value.retryable) == ("auth_failed", False)
    assert "s3cret" not in str(caught.value)


@pytest.mark.parametrize(("code", "retryable"), [(451, True), (550, False)])
def test_refused_recipients(starttls: SmtpServer, pki: Pki, code: int, retryable: bool) -> None:
    starttls.refuse_recipients(code)
    with pytest.raises(SendError) as caught:
        _sink(starttls.port, pki).send(FIRING)
    assert (caught.value.reason, caught.value.retryable) == ("recipients_refused", retryable)


def test_a_certificate_it_cannot_verify_is_permanent(starttls: SmtpServer) -> None:
    with pytest.raises(SendError) as caught:
        _sink(starttls.port, None).send(FIRING)
    assert (caught.value.reason, caught.value.retryable) == ("tls_verify_failed", False)


def test_nobody_listening_is_retryable(pki: Pki) -> None:
    with pytest.raises(SendError) as caught:
        _sink(free_port(), pki).send(FIRING)
    assert caught.value.retryable


def test_a_password_without_tls_is_refused_at_load() -> None:
    with pytest.raises(ValueError, match="only sent over TLS"):
        EmailSinkConfig.model_validate({
            "name": "mail", "type": "email", "host": "h", "security": "none",
            "from": "a@b.c", "to": ["d@e.f"], "username": "u", "password": "p",
        })  # fmt: skip


def test_the_mail_preview_is_what_is_sent(pki: Pki, tmp_path: Path) -> None:
    preview = _sink(1, pki).preview(FIRING)
    assert preview.startswith("Subject: [FIRING] [prod-eu]") and "\n--- text/html ---\n" in preview
    text = preview.split("--- text/plain ---\n", 1)[1].split("\n--- text/html", 1)[0]
    said = text.splitlines()
    assert said[0] == FIRING.facts["summary"] and said[1] == ""
    assert said[2] == "Reason: CrashLoopBackOff: back-off 40s restarting failed container=web"
    assert [line for line in said if line] == list(dict.fromkeys(line for line in said if line))


def test_the_enriched_log_is_in_both_parts_escaped_in_html(starttls: SmtpServer, pki: Pki) -> None:
    logs = [{"container": "web", "previous": True, "lines": ["panic: <boom>"], "truncated": False}]
    facts = {**(FIRING.facts or {}), "context": {"logs": logs}}
    _sink(starttls.port, pki).send(dataclasses.replace(FIRING, facts=facts))
    [mail] = starttls.mails()
    text, html = mail.get_body(("plain",)), mail.get_body(("html",))
    assert text is not None and html is not None
    said = text.get_content().replace("\r\n", "\n")
    assert "Log of web (previous instance, last 1 lines):\n  panic: <boom>\n" in said
    assert "<pre>panic: &lt;boom&gt;</pre>" in html.get_content()
