"""The HTTP face: /healthz, /readyz and /metrics (FastAPI on uvicorn, in its own thread)."""
