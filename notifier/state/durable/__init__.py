"""The state database behind the pipeline's own interfaces: the objects acted on (for
``workers.Known``), held group members, firings, ``for:`` timers (for the rules)."""
