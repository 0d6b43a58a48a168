"""Fifteen Thirty-Five, "counter": counts its cards and aims at 15 or 35.

Cards count at face value, Aces 1 and pictures (K, Q, J) a half, the low way; a hand can
also count each Ace as 11 and each picture as 10, which is how it reaches 35. The bot
takes cards while a low total under 10 or a high total under 28 leaves room, bets when a
target is within a point, folds facing a bet when both targets are far, exposes its
lowest card (it keeps Aces and pictures hidden) and declares the nearer target.
"""

import botkit

PICTURES = "KQJ"


def low_value(card):
    rank = card[0]
    if rank == "A":
        return 1.0
    if rank in PICTURES:
        return 0.5
    return 10.0 if rank == "T" else float(rank)


def high_value(card):
    rank = card[0]
    if rank == "A":
        return 11.0
    if rank in PICTURES:
        return 10.0
    return low_value(card)


def my_cards(observation):
    return observation["hidden"] + observation["exposed"][observation["seat"]]


def distances(cards):
    """How far the best low count is from 15 and the best high count from 35."""
    low = sum(low_value(card) for card in cards)
    high = sum(high_value(card) for card in cards)
    best_high = min((abs(35 - total) for total in (low, high)), default=35)
    return abs(15 - low), best_high, low, high


def choose(observation, legal):
    cards = my_cards(observation)
    to_15, to_35, low, high = distances(cards)
    if legal[0].startswith("expose "):
        return min(legal, key=lambda action: (high_value(action[-2:]), action))
    if "take" in legal:
        return "take" if low < 10 or 15 < high < 28 else "refuse"
    if "15" in legal:
        if to_15 <= 0.5 and to_35 <= 0.5 and "both" in legal:
            return "both"
        return "15" if to_15 <= to_35 else "35"
    close = min(to_15, to_35) <= 1
    if "bet" in legal:
        return "bet" if close else "check"
    if "raise" in legal and close:
        return "raise"
    if "fold" in legal and min(to_15, to_35) > 6 and observation.get("final_round"):
        return "fold"
    return "call" if "call" in legal else legal[0]


botkit.run(choose)
