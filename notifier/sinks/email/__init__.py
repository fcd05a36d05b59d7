"""The email receiver: SMTP with STARTTLS or TLS and auth, text and HTML, a thread per alert.

Its modules are imported one by one: ``config`` with the other sinks' models,
the rest (``building``, ``sink``: smtplib and the email package) only when an
email sink is configured (``sinks/building.py``).
"""
