"""A rule's ``match:``: the transition as matchers see it (``probing``), the compiled
predicates (``predicates``), compiling them (``match_compiler``), name patterns and label
selectors."""
