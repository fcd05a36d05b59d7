"""Silences kept in a ConfigMap: its watch (``watching.py``: every replica applies a change
to the rules' ``SilenceBook``) and its writer (``writing.py``: read-modify-write, the one way the
CLI and the page add or end a silence). Matching a silence is pure: ``silences/book.py``."""
