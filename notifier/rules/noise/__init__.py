"""Noise control between matching and delivery: dedup windows and group digests.

The package imports none of its modules: a rule's ``NoisePolicy`` (``policy``)
is what loading a config needs; ``control`` and its metrics (and with them
``prometheus_client``) are the engine's.
"""
