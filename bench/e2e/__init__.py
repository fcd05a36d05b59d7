"""End-to-end benchmark: kube-notifier against kubewatch, the `kubernetes` client used well (the
lean notifier) and a tutorial-style baseline, on a real control plane.

A churn generator patches Pods at controlled rates (with Pods failing
through kwok and Deployments rolling in the background); each subject runs
as its own process with a webhook sink pointed at a local receiver that
timestamps arrivals. Measured per subject: latency percentiles at 20, 50, 100, 200
and 1,000 changes per second, the highest rate sustained with nothing lost,
CPU seconds per 1,000 changes, peak RSS, and start-up with the fleet
cached: ready after the first start, the process tree's CPU in its first
30 s, and ready after a restart with saved state (kube-notifier's later
starts reuse its state file; ``starts``). Two workloads, one after the other on fresh control planes
(``workloads``): large Pods with label patches and background churn, and
small Pods churned through phase transitions (``phases``) with none.
``python -m bench.e2e [--quick | --smoke] [--kubewatch-src DIR] [--workload NAME]``;
docs/benchmarks.md has the figures.

kubewatch (``kubewatch``) is built from a git repository of its source
given with ``--kubewatch-src`` (or ``KN_BENCH_KUBEWATCH_SRC``; a built
binary with ``--kubewatch-bin``); without one it is skipped and the output
says so. Its webhook payload names the Pod but not the change: the
receiver keeps such requests as *mentions* and ``scoring.match_mentions``
pairs them with the churn's changes, first in first out per Pod. It is
ready when its Pod, Deployment and Service controllers have each logged
that their informer synced.

Modules: ``api`` (raw HTTPS writes), ``fleet`` (the cached objects),
``churn`` / ``background`` (the changes), ``receiver`` (the webhook end),
``watchfloor`` (a bare watcher: the control plane's part of the latency),
``scoring`` (pure), ``subjects`` / ``baseline`` / ``lean`` / ``kubewatch``,
``procstat`` / ``cpu`` (who used the CPU), ``trials`` / ``measuring`` (one
trial; the subjects taking turns), ``starts`` (a start's CPU and what it
told), ``settings``, ``headline`` / ``report`` / ``targets``,
``workloads`` / ``phases``, ``runner``.
"""
