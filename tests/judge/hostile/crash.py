"""Plays two moves, then raises an exception (a crash in the middle of a game)."""

import botkit

moves = []


def choose(observation, legal):
    moves.append(observation)
    if len(moves) > 2:
        raise RuntimeError("bot bug: ran off the end of my strategy table")
    return 0


botkit.run(choose)
