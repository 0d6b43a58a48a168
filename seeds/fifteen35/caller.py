"""Fifteen Thirty-Five, "caller": never bets or folds, never takes a card, declares 15.

It exposes its first face-down card, checks or calls every bet, refuses every offer and
declares 15: the calling station every betting bot should beat.
"""

import botkit


def choose(observation, legal):
    for preferred in ("check", "call", "refuse", "15"):
        if preferred in legal:
            return preferred
    return legal[0]  # an exposure


botkit.run(choose)
