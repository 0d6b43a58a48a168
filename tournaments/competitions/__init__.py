"""Tournaments and the ladder: schedules of matches, standings, and the ladder's matchmaking."""
