"""The rules' time: ``for:`` timers (``timers``, ``stays``), the ``TimeKeeper`` that
holds them under one lock, what the clock tells (``clock_telling``), what waits (``held_back``,
as the page reads it) and what is held durable meanwhile (``holding``)."""
