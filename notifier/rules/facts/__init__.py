"""What a notification says and carries: the facts (``contexts``, ``neutral``, ``folded``), the
notifications, their ids and keys (``notifying``, ``group_keys``), ``rules test``'s
preview and what enrichment is asked to fetch."""
