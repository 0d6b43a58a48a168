"""The replay's words come from each game's own narration, and name the deciding rule."""

from __future__ import annotations

from judge import games
from judge.games.fifteen35 import narration as fifteen
from judge.narration import Narration, generic_outcome

NAMES = ["ada", "bob", "cy"]


def showdown(cards: dict[str, list[str]], declared: dict[str, str], won: list[int]) -> dict:
    """A settled Fifteen Thirty-Five hand as the engine's ``last_hand`` shows it."""
    return {"hand": 0, "pot": sum(won), "showdown": cards, "declarations": declared, "won": won}


def text(lines: list) -> str:
    return " ".join(part for line in lines for part in line if isinstance(part, str))


def test_a_total_of_18_beats_19_and_a_half_for_15_by_being_nearer() -> None:
    hand = showdown(
        {"0": ["9h", "5d", "4c"], "1": ["9s", "Kd", "Tc"]}, {"0": "15", "1": "15"}, [6, 0]
    )
    said = text(fifteen.hand_lines(hand, NAMES))
    assert "ada's 18 beat bob's 19½ for 15: nearer 15 (3 away against 4½)" in said


def test_at_equal_distance_under_beats_over() -> None:
    hand = showdown(
        {"0": ["9h", "4d", "Ac"], "1": ["9s", "6d", "Ad"]}, {"0": "15", "1": "15"}, [6, 0]
    )
    said = text(fifteen.hand_lines(hand, NAMES))
    assert "ada's 14 beat bob's 16 for 15: as near as it, and under 15 beats over" in said


def test_fewer_cards_decide_equal_totals() -> None:
    hand = showdown(
        {"0": ["9h", "5d", "Kc"], "1": ["7s", "6d", "Kd", "Ah"]}, {"0": "15", "1": "15"}, [6, 0]
    )
    said = text(fifteen.hand_lines(hand, NAMES))
    assert "are level; ada has fewer cards (3 against 4)" in said


def test_a_failed_both_names_the_rival_who_stopped_it() -> None:
    hand = showdown(
        {"0": ["9h", "5d", "Kc"], "1": ["9s", "5c", "Ad"]}, {"0": "both", "1": "15"}, [0, 6]
    )
    said = text(fifteen.hand_lines(hand, NAMES))
    assert "ada declared both without beating every rival" in said
    assert "(bob's 15 beat ada's 14½ for 15: nearer 15 (0 away against ½))" in said


def test_every_registered_game_is_told_by_its_own_narration_or_generically() -> None:
    for name in games.GAMES:
        module = games.narration(name)
        assert module is not None and callable(module.outcome), name
    told = Narration("no-such-game", NAMES[:2])
    told.start({})
    told.after(0, 0, {})
    result = {"scores": [1, -1], "places": [1, 2]}
    assert told.outcome(result, {}, "standard") == generic_outcome({}, result, {}, NAMES, "")
