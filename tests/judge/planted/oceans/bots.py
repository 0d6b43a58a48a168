"""Oceans 11's house bots, for the planted variant."""

from judge.games.oceans11.bots import POLICIES

__all__ = ["POLICIES"]
