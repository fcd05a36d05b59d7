"""Rules: which transitions become notifications, for which sinks, saying what.

Pure and synchronous: no network, no Kubernetes calls, no threads of its
own; the time and the lookups (namespace labels, owners) are injected.
``compiling`` turns rule settings into a ``Ruleset`` once per load;
``Ruleset.evaluate`` routes one transition (Alertmanager-like: ordered,
first match wins unless ``continue``); ``noise`` thins out what matched
(dedup, group digests); ``templating``/``rendering`` write the messages;
``engine`` strings it together for the workers. docs/rules.md is the
user-facing description.

The package imports none of its modules: loading a config (``rules check``)
needs the settings and the compiler, not the engine.
"""
