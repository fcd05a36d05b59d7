"""Informers: list + watch Pods, Deployments and Services into a local cache.

Data flow: ``reflector`` (list, watch, relist on 410) -> ``store`` (the
cache of trimmed objects) -> ``deltas`` handed to a ``DeltaHandler`` (the
worker intake, which feeds the workqueue).
"""
