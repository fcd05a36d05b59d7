"""Jinja2 in a bounded sandbox: the one template engine, for every receiver's ``template:``.

Pure: no I/O. ``sandbox`` bounds what a template may do (time, output size,
attribute access); ``environment`` makes the environment with our filters;
``compiling`` compiles text and structures, checking the variables they use.
"""
