"""Workers: take object keys from the queue, read the cache, produce transitions.

``intake`` turns informer deltas into queued keys plus the little each key
needs remembered (where it came from, a deleted object's final state);
``known`` holds the last state this process acted on; ``worker`` compares
the two and hands the transitions on. Retries live here, not downstream.
"""
