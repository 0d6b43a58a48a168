"""Ratings: the tournament fit (one Elo per entrant from a tournament's results), the global
rating (one skill per bot and game), comparison units, and recomputing from the history."""
