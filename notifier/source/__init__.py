"""Informers: list + watch every kind a config watches (``kinds.registry``, its custom
resources too) into a local cache.

Data flow: ``reflector`` (list, watch, relist on 410) -> ``store`` (the
cache of trimmed objects) -> ``deltas`` handed to a ``DeltaHandler`` (the
worker intake, which feeds the workqueue).
"""
