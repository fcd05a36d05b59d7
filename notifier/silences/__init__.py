"""Silences: the book the rules consult (``book.py``: matchers, a time span, a comment; pure),
the ConfigMap they are kept in, watched (``watching.py``: every replica applies a change to its
``SilenceBook``), and its writer (``writing.py``: read-modify-write, the one way the CLI and the
page add or end a silence)."""
