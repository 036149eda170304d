"""Tsumo's synthetic data: tile appearance (`tiles`, `faces`, `fonts`) and classifier crops (`crops`)."""
from .tiles import TileArtist, TileSprite

__all__ = ["TileArtist", "TileSprite"]
