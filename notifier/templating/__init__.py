"""Jinja2 in a bounded sandbox: what the rules' templates and the receivers' own templates share.

Pure: no I/O. ``sandbox`` bounds what a template may do (time, output size,
attribute access); ``environment`` makes the environment with our filters.
"""
