"""Tile detection and hand reading: photo → tiles → hand (see ARCHITECTURE.md)."""
