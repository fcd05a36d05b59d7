"""Which SMTP failures are worth retrying, as ``SendError``s with bounded reasons.

Retryable: 4xx replies (the server says "later"), a connection refused,
reset or timed out, a send past its deadline, a TLS handshake cut short.
Permanent: 5xx replies (a recipient refused, a message refused), failed
authentication, a certificate that does not verify, a server that offers
no STARTTLS or no AUTH when we need them. The detail is the server's
code and the exception type, never the credentials.
"""

from __future__ import annotations

import smtplib
import ssl

from notifier.sinks.base import SendError


def failure_for_smtp(err: BaseException, *, expired: bool = False) -> SendError:
    if expired:
        return SendError("deadline", retryable=True, detail=type(err).__name__)
    if isinstance(err, smtplib.SMTPAuthenticationError):
        return SendError("auth_failed", retryable=False, detail=f"smtp {err.smtp_code}")
    if isinstance(err, smtplib.SMTPRecipientsRefused):
        codes = sorted({code for code, _ in err.recipients.values()})
        retryable = all(400 <= code < 500 for code in codes)
        return SendError("recipients_refused", retryable=retryable, detail=f"smtp {codes}")
    if isinstance(err, smtplib.SMTPResponseException):
        code = err.smtp_code
        return SendError(f"smtp_{code // 100}xx", retryable=code < 500, detail=f"smtp {code}")
    if isinstance(err, smtplib.SMTPNotSupportedError):
        return SendError("smtp_unsupported", retryable=False, detail=str(err)[:200])
    return _below_smtp(err)


def _below_smtp(err: BaseException) -> SendError:
    detail = type(err).__name__
    if isinstance(err, ssl.SSLCertVerificationError):
        return SendError("tls_verify_failed", retryable=False, detail=detail)
    if isinstance(err, ssl.SSLError):
        return SendError("tls_error", retryable=True, detail=detail)
    if isinstance(err, TimeoutError):
        return SendError("timeout", retryable=True, detail=detail)
    if isinstance(err, smtplib.SMTPServerDisconnected | ConnectionError):
        return SendError("connection_error", retryable=True, detail=detail)
    return SendError("connection_error", retryable=True, detail=detail)
