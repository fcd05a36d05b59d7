"""Incidents: what a rule told about an object, open until it recovers (``resolving``),
folded by owner (``folding``), told once while it flaps (``flapping``)."""
