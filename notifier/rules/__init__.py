"""Rules: which transitions become notifications, for which sinks, with what facts.

Pure and synchronous: no network, no Kubernetes calls, no threads of its
own; the time and the lookups (namespace labels, owners) are injected.
``compiling`` turns rule settings (``config/``) into a ``Ruleset`` once per
load; ``Ruleset.evaluate`` routes one transition (Alertmanager-like: ordered,
first match wins unless ``continue``) through each rule's ``matching/``;
``quieting`` applies ``suppression/`` (inhibitions, mute windows) and the
silences; ``noise/`` thins out what matched (dedup, group digests);
``incidents/`` keeps what each rule told until the object recovers;
``timing/`` holds the ``for:`` timers and the clock's messages; ``facts/``
is what each notification carries for its receiver to render; ``engine``
strings it together for the workers. docs/rules.md is the user-facing
description.

The package imports none of its modules: loading a config (``rules check``)
needs the settings and the compiler, not the engine.
"""
