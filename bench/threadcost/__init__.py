"""Per-thread CPU and context switches per change of kube-notifier at fixed rates (issue #29).

``python -m bench.threadcost [--rates 20 100] [--seconds 30]``: the scale
bench's stand-in API server (``bench.scale.standin``) with 10,000 Pods in
500 namespaces (12,000 objects with the Deployments and Services), the
real service (``python -m notifier run``, the scale bench's config: a rule
telling every ``seq`` change of the half of the Pods labelled ``bench=1``,
log level warning) and the scale bench's receiver. Once the service is
ready and quiet: an idle window, then, per rate, the stand-in changes Pods
at that rate for ``--seconds``, the receiver drains, and the service's
threads are read from ``/proc/<pid>/task/*/stat`` (user + system ticks)
and ``/proc/<pid>/task/*/status`` (``voluntary_ctxt_switches``,
``nonvoluntary_ctxt_switches``) before and after. Python 3.11 gives its
threads no OS names, so ``py-spy dump --json`` (PyPI ``py-spy``) maps each
OS thread id to its Python thread name; threads of one family
(``worker-0`` .. ``worker-3``) are summed under ``worker-*``.

``tasks`` reads and sums; ``run`` drives the processes; ``__main__``
prints the table and writes bench/results/threadcost.json.
"""
