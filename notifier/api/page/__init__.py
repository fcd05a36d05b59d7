"""The on-call's page: Now, Why not, Silences, Delivery (server-rendered, read from views)."""
