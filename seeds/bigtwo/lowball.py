"""Big Two, "lowball": plays the weakest legal combination; passes only when it must.

Cards rank 3 (lowest) to 2 (highest), then by suit: diamonds, clubs, hearts, spades. A
play is weighed by its highest card, so the bot gets rid of its low cards first.
"""

import botkit

RANKS = "3456789TJQKA2"
SUITS = "dchs"


def strength(card):
    return RANKS.index(card[0]) * 4 + SUITS.index(card[1])


def choose(observation, legal):
    plays = [action for action in legal if action != "pass"]
    if not plays:
        return "pass"
    return min(plays, key=lambda play: (max(strength(card) for card in play), -len(play)))


botkit.run(choose)
