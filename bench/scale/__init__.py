"""Scale bench (issue #16, "Sized for 100k Pods"): kube-notifier against a stand-in API server.

The local control plane writes ~100-150 objects a second on 2 cores and
does not hold 100,000 Pods, so this bench serves them from a stand-in
(``standin``: list and watch over plain HTTP on 127.0.0.1, the API's own
protocol: pages, resourceVersions, bookmarks, 410) with generated objects
(``objects``: 100,000 ~9.5 KB Pods over 1,000 namespaces, 2 Deployments
and 2 Services per namespace). It is a stand-in to go beyond what the
control plane can write; everything that claims to test watching uses the
real kube-apiserver (tests/integration, bench/e2e).

The real service runs as ``python -m notifier run`` (``notifier``), pinned
to one core, with a rule sending the changes of half the Pods to a webhook
receiver on 127.0.0.1 (``receiver``) and a state file in a temporary
directory; the stand-in and the receiver share the other core. ``phases``
measures, in order: ready time and steady RSS, peak RSS during a forced
410 relist, changes/s through the rule to the webhook in bursts of 5,000 a
second with nothing lost (``scoring``), a restart with the saved state of
every object, the same start with ``watch.namespaces`` of 500 namespaces,
and the ``kubernetes`` client's list + watch into dicts (``baseline``) as
a user would write it. RSS is ``VmRSS`` sampled every 50 ms on a thread
(``sampling``) and ``VmHWM``. ``report`` prints each figure against the
issue's targets.

    .venv/bin/python -m bench.scale            # 100,000 Pods: ~5 minutes
    .venv/bin/python -m bench.scale --quick    # 10,000 Pods: about a minute
"""
