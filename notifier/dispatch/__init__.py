"""Between the workers and delivery: the rules decide (``RoutingStage``), and the rules'
clock (``Ticker``) releases group digests and fires ``for:`` timers when they come due."""
