"""How a duel seats its bots and scores a duplicate pair.

B and A sit at symmetric seats: B in seat 0, A half way round the table, the panel's
bots everywhere else. The pair's second game deals the same cards with B and A swapped
and the panel where it was, so the only thing that changes is who holds which hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

Bot = TypeVar("Bot")


def duel_seats(players: int) -> tuple[int, int]:
    """B's and A's seats in a pair's first game (swapped in the second)."""
    if players < 2:
        raise ValueError(f"a duel needs a table of at least 2 players, not {players}")
    return 0, players // 2


def seatings(players: int, b: Bot, a: Bot, panel: Bot) -> tuple[list[Bot], list[Bot]]:
    """The bots seat by seat in the pair's first game and in its second."""
    seat_b, seat_a = duel_seats(players)
    first = [panel] * players
    first[seat_b], first[seat_a] = b, a
    second = list(first)
    second[seat_b], second[seat_a] = a, b
    return first, second


def seed_slots(players: int, seating: int) -> list[int]:
    """For each seat of a pair's first game (``seating`` 0) or second (1), the seat whose
    house-bot seed the bot sitting there takes: the seat it held in the first game.

    A house bot draws its random choices from a seed; seeded by the seat it sits in, B in
    the second game would play A's first-game choices and A B's, so two identical house
    bots replay each other's game exactly and tie every pair (issue 47). Seeded by the
    seat each bot held first, every bot keeps its own choices across the pair and the two
    games differ only in who sits where."""
    slots = list(range(players))
    if seating:
        seat_b, seat_a = duel_seats(players)
        slots[seat_b], slots[seat_a] = seat_a, seat_b
    return slots


def game_points(scores: Sequence[float], b_seat: int, a_seat: int) -> float:
    """B's points in one game: 1 for a score above A's, 0.5 for the same, else 0."""
    if scores[b_seat] > scores[a_seat]:
        return 1.0
    return 0.5 if scores[b_seat] == scores[a_seat] else 0.0


def pair_points(first: Sequence[float], second: Sequence[float]) -> float:
    """B's points (0 to 2) in a pair, from each seat's score in its first and second game."""
    seat_b, seat_a = duel_seats(len(first))
    return game_points(first, seat_b, seat_a) + game_points(second, seat_a, seat_b)
