"""Kinds as data: everything the service knows about one kind of object, one module per kind.

``registry`` lists them; generic code asks it and never names a kind.
``spec.KindSpec`` says what a kind must provide; ``diffing``, ``sharing``,
``workload`` and ``containers`` are the parts several kinds share.
"""
