"""Oceans 11's words, for the planted variant."""

from judge.games.oceans11.narration import events, outcome

__all__ = ["events", "outcome"]
