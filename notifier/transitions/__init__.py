"""Transitions: what changed about one object, derived by pure functions.

``detecting.detect_all`` is the entry point; ``model`` holds what it returns.
"""
