"""The kinds of situation each game declares for the check (``Game.situations``): every
key ``situation`` gives is declared, a seat not to act meets none, every declared kind
comes up in play against the check's opponents, and judge.situations counts from a
match's record what a bot met, not the fallbacks played for it after its fault."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from judge.bots import SpreadPolicy, house_policy, policies
from judge.channel import BotGone
from judge.engine import Action, Game, GameError
from judge.games import GAMES, game_class, new_game
from judge.referee import BotInfo, MatchSpec, play_match
from judge.situations import at_step, met, words
from tests.judge.fakes import Reply, Table, first_legal
from tests.judge.highcard import HighCard

#: Random games per game and table size: enough for every kind, still a second or two.
SEEDS = 40


def random_play(name: str, players: int, variant: str, seed: int) -> Counter[str]:
    """The kinds every seat met in one game of spread and random players."""
    cls = game_class(name)
    game = new_game(name, seed, players=players, variant=variant, options=dict(cls.check_options))
    movers = [SpreadPolicy(seed + seat) if seat % 2 else None for seat in range(players)]
    rng = random.Random(seed)
    found: Counter[str] = Counter()
    while not game.is_over():
        seat = game.to_act()[0]
        kinds = game.situation(seat)
        assert set(kinds) <= set(cls.situations), (name, kinds)
        found.update(kinds)
        for other in range(players):
            if other not in game.to_act():
                assert game.situation(other) == (), "a seat not to act meets nothing"
        legal = game.legal_actions(seat)
        mover = movers[seat]
        choice = mover.act(game.observation(seat), legal) if mover else rng.choice(legal)
        game.apply(seat, choice)
    return found


#: The registry's own games (the tests' toy High Card, registered too, declares none).
OWN = sorted(name for name, cls in GAMES.items() if cls.__module__.startswith("judge.games."))


@pytest.mark.parametrize("name", OWN)
def test_every_declared_kind_comes_up_in_play(name: str) -> None:
    cls = game_class(name)
    assert cls.situations, f"{name} declares the kinds of situation its check must meet"
    found: Counter[str] = Counter()
    for players in range(cls.min_players, cls.max_players + 1):
        for variant in cls.variants:
            for seed in range(SEEDS // len(cls.variants) + 1):
                found += random_play(name, players, variant, seed)
    assert {kind for kind in cls.situations if not found[kind]} == set()


def test_a_game_that_declares_none_meets_none() -> None:
    game: Game = HighCard(1, players=2)
    assert HighCard.situations == {} and game.situation(game.to_act()[0]) == ()


def test_spread_plays_every_kind_of_action_and_is_not_listed() -> None:
    legal: list[Action] = ["pass", ["3d"], ["4d"], ["5d"], ["6d"], ["3d", "3c"], ["3d", "3c", "3h"]]
    spread = SpreadPolicy(3)
    kinds = Counter(
        len(a) if isinstance(a, list) else a for a in (spread.act({}, legal) for _ in range(4000))
    )
    assert set(kinds) == {"pass", 1, 2, 3}
    assert min(kinds.values()) > 800, kinds  # each kind about a quarter, singles no more
    assert "spread" not in policies("bigtwo")
    assert isinstance(house_policy("bigtwo", "spread", 1), SpreadPolicy)
    with pytest.raises(GameError) as refused:
        house_policy("bigtwo", "nobody")
    assert "spread" not in str(refused.value)


def test_a_bot_is_counted_until_its_fault_and_its_fault_is_placed() -> None:
    """Bot 0 crashes at its third decision: its first three count (the third is where it
    faulted), the fallbacks played for it afterwards do not; bot 1's all count."""
    asked = 0

    def crashes_third(message: dict[str, Any]) -> Reply | None:
        nonlocal asked
        if message["type"] == "act":
            asked += 1
            if asked == 3:
                return Reply(error=BotGone("exited with status 1"))
        return first_legal(message)

    table = Table(crashes_third, first_legal)
    spec = MatchSpec(game="oceans11", seed=11, games=2)
    record = play_match(spec, [BotInfo("a"), BotInfo("b")], table.start, clock=table.clock).record
    (fault,) = record["faults"]
    assert fault["bot"] == 0 and fault["game"] == 0
    kinds = ("deal-or-concede", "must-deal")
    assert sum(met(record, 0)[k] for k in kinds) == 3
    assert at_step(record, 0, fault["move"])[0] in kinds
    theirs = sum(1 for g in record["games"] for seat, _ in g["record"]["actions"] if seat == 1)
    assert sum(met(record, 1)[k] for k in kinds) == theirs
    declared = game_class("oceans11").situations
    assert words(("must-deal", "last-card"), declared) == (
        f"{declared['must-deal']}; {declared['last-card']}"
    )


def test_big_twos_spread_leads_its_triples_and_keeps_them_whole() -> None:
    """The check's further opponent in Big Two leads a triple whenever it holds one (a
    followed triple was the kind checks most often missed) and does not break it to
    follow a single; other games keep the shared spread."""
    from judge.games.bigtwo.bots import SpreadPolicy as BigTwoSpread

    spread = house_policy("bigtwo", "spread", 2)
    assert isinstance(spread, BigTwoSpread)
    hand = ["5d", "5c", "5h", "9s", "Kd"]
    leads: list[Action] = [["5d"], ["9s"], ["Kd"], ["5d", "5c"], ["5d", "5c", "5h"]]
    lead = {"hand": hand, "trick": None}
    assert all(spread.act(lead, leads) == ["5d", "5c", "5h"] for _ in range(50))
    follows: list[Action] = ["pass", ["5h"], ["9s"], ["Kd"]]
    played = {str(spread.act({"hand": hand, "trick": ["4s"]}, follows)) for _ in range(200)}
    assert played == {"pass", "['9s']", "['Kd']"}
    assert type(house_policy("oceans11", "spread", 2)) is SpreadPolicy
