"""The HTTP face: /healthz, /readyz and /metrics (Starlette on uvicorn, in its own thread);
the on-call's page on FastAPI."""
