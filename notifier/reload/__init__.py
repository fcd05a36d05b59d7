"""Hot reload: the rules holder that swaps a valid config in atomically (``holder.py``, pure),
what brings a candidate (the mounted file, ``polling.py``; the rules ConfigMap watched,
``configmap.py``) and the stagers an accepted change runs before the swap (the watch changes,
``watch_changes.py``; the namespace watch, ``namespace_watch.py``; the sinks, ``sinks.py``)."""
