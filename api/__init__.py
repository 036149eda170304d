"""The HTTP API and the phone page (FastAPI)."""
