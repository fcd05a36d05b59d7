"""The rules' settings as written (``specs``, ``durations``), the template keys they no
longer take, and the problems compiling them finds, each with its key path (``problems``;
``rules/compiling.py`` compiles)."""
