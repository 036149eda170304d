"""The scoring engine: pure Python, no heavy dependencies."""
