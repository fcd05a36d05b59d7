"""Soak bench (issue #16, goal 4): an hour of varied churn, memory and state file watched.

kube-notifier runs as shipped (``python -m notifier run``, a state file)
against the scale bench's stand-in API server (``bench.scale.standin``,
extended here by ``standin``: creates and deletes, annotation and label
changes with values never seen before, Pods turning Failed), because the
real control plane at 50 writes a second would take most of this machine's
two cores for the hour. It is a stand-in, said so in the output; watching
itself is tested against the real kube-apiserver (tests/integration).

``churn`` decides each change (a fixed mix, ``MIX``); ``report`` reads
the samples (RSS, the SQLite file and its WAL, notifications) into the
figures the issue asks for: RSS flat within 10% after the first ten
minutes, the state file bounded, nothing lost or told twice.

    .venv/bin/python -m bench.soak              # 60 minutes at 50 changes/s
    .venv/bin/python -m bench.soak --quick      # 3 minutes, to check it runs
"""
