"""What may keep a matched transition quiet: inhibitions (compiled from ``inhibit_rules:``)
and mute windows; ``rules/quieting.py`` applies them, and the silences
(``notifier/silences/book.py``)."""
