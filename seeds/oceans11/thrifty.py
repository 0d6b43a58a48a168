"""Oceans 11, "thrifty": concedes a hand it is far behind in, to save its deck's cards.

Each row comes with its poker hand (``row_hands``): ``key[0]`` is the category, from 0
(high card) to 9 (five of a kind). When the opponent's row is two or more categories
better, a card or two will rarely catch up, so the bot gives the hand away and keeps its
cards for later hands. It logs each concession to standard error (its log).
"""

import sys

import botkit

FAR_BEHIND = 2  # categories


def choose(observation, legal):
    if "concede" not in legal:
        return "deal"
    seat = observation["seat"]
    mine = observation["row_hands"][seat]["key"][0]
    best_other = max(
        hand["key"][0] for index, hand in enumerate(observation["row_hands"]) if index != seat
    )
    if best_other - mine >= FAR_BEHIND:
        print(f"hand {observation['hand']}: conceding, {best_other} vs {mine}", file=sys.stderr)
        return "concede"
    return "deal"


botkit.run(choose)
