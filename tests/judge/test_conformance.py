"""One conformance suite for every game of the registry (and the tests' toy High Card).

In the manner of OpenSpiel's generic random-simulation test: random games to the end at
every table size and variant, determinism from the seed, record -> replay round trip,
secrecy (an observation does not change when the cards its seat cannot see are dealt
anew), the fallback action always legal, zero-sum where the game says so, and every
protocol message of a match valid against its JSON Schema. A new game passes this suite
without a line written here: it is parametrised over the registry.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator

import pytest

from judge import protocol
from judge.engine import Game
from judge.games import GAMES, game_class, new_game, register, replay, unregister
from judge.players import house_players
from judge.referee import MatchSpec, play_match
from judge.replay import verify
from tests.judge.fakes import validate_message
from tests.judge.highcard import HighCard
from tests.judge.test_referee_games import recording

#: The registry's games and the toy that proves a fourth one needs nothing more.
CLASSES: dict[str, type[Game]] = {**GAMES, HighCard.name: HighCard}
#: Every (game, players, variant) there is.
TABLES = [
    (name, players, variant)
    for name, cls in CLASSES.items()
    for players in range(cls.min_players, cls.max_players + 1)
    for variant in cls.variants
]
IDS = [f"{name}-{players}p-{variant}" for name, players, variant in TABLES]
#: Random games per table: enough to reach every ending of small games, still seconds.
SEEDS = 6
#: A game longer than this many actions is taken to never end.
MAX_ACTIONS = 20_000


@pytest.fixture(autouse=True)
def toy_registered() -> Iterator[None]:
    """High Card in the registry for the duration of a test (the referee looks it up)."""
    register(HighCard)
    yield
    unregister(HighCard.name)


def make(name: str, seed: int, players: int, variant: str) -> Game:
    return new_game(name, seed, players=players, variant=variant)


def random_step(game: Game, rng: random.Random) -> None:
    """One random legal action of one random seat to act, checking the seat's choices."""
    seat = rng.choice(game.to_act())
    legal = game.legal_actions(seat)
    assert legal, f"seat {seat} must act but has no legal action"
    assert game.fallback_action(seat) in legal
    action = rng.choice(legal)
    assert game.why_illegal(seat, action) is None
    game.apply(seat, action)


def play_randomly(game: Game, rng: random.Random, check: bool = False) -> Game:
    for _ in range(MAX_ACTIONS):
        if game.is_over():
            return game
        if check:
            check_position(game)
        random_step(game, rng)
    raise AssertionError(f"no end after {MAX_ACTIONS} actions")


def check_position(game: Game) -> None:
    """Observations are JSON values; only seats to act have legal actions."""
    acting = set(game.to_act())
    assert acting and acting <= set(range(game.players))
    for seat in range(game.players):
        seen = game.observation(seat)
        assert json.loads(json.dumps(seen)) == seen
        assert bool(game.legal_actions(seat)) == (seat in acting)
        if seat not in acting:
            assert game.why_illegal(seat, game.fallback_action(next(iter(acting)))) is not None


@pytest.mark.parametrize(("name", "players", "variant"), TABLES, ids=IDS)
def test_random_games_run_to_an_end_with_a_proper_result(
    name: str, players: int, variant: str
) -> None:
    cls = game_class(name)
    rng = random.Random(f"{name}-{players}-{variant}")
    for seed in range(SEEDS):
        game = play_randomly(make(name, seed, players, variant), rng, check=seed < 2)
        assert game.to_act() == ()
        assert all(game.legal_actions(seat) == [] for seat in range(players))
        result = game.result()
        assert len(result.scores) == len(result.places) == players
        assert min(result.places) == 1 and max(result.places) <= players
        if cls.zero_sum:
            assert sum(result.scores) == 0
        assert json.loads(json.dumps(game.revealed())) == game.revealed()


@pytest.mark.parametrize(("name", "players", "variant"), TABLES, ids=IDS)
def test_the_seed_alone_decides_the_deals(name: str, players: int, variant: str) -> None:
    one = play_randomly(make(name, 3, players, variant), random.Random(1))
    two = play_randomly(make(name, 3, players, variant), random.Random(1))
    assert one.record() == two.record() and one.revealed() == two.revealed()
    assert one.result() == two.result()
    others = [make(name, seed, players, variant).deck_orders for seed in range(4, 8)]
    assert any(orders != one.deck_orders[: len(orders)] for orders in others)


@pytest.mark.parametrize(("name", "players", "variant"), TABLES, ids=IDS)
def test_a_record_replays_to_the_same_game(name: str, players: int, variant: str) -> None:
    for seed in range(2):
        game = play_randomly(make(name, seed, players, variant), random.Random(seed))
        record = json.loads(json.dumps(game.record()))
        again = replay(record)
        assert again.is_over() and again.result() == game.result()
        assert again.revealed() == game.revealed()
        assert [again.observation(s) for s in range(players)] == [
            game.observation(s) for s in range(players)
        ]
    record["deck_orders"][0] = list(reversed(record["deck_orders"][0]))
    with pytest.raises(ValueError):
        replay(record)


@pytest.mark.parametrize(("name", "players", "variant"), TABLES, ids=IDS)
def test_an_observation_does_not_change_when_unseen_cards_are_dealt_anew(
    name: str, players: int, variant: str
) -> None:
    rng = random.Random(f"secret-{name}-{players}-{variant}")
    moved = checked = 0
    for seed in range(SEEDS):
        game = make(name, seed, players, variant)
        while not game.is_over():
            seat = rng.randrange(players)
            twin = copy.deepcopy(game)
            moved += twin.redeal_unseen(seat, rng)
            assert twin.observation(seat) == game.observation(seat)
            assert twin.legal_actions(seat) == game.legal_actions(seat)
            assert twin.to_act() == game.to_act()
            checked += 1
            random_step(game, rng)
    assert moved > checked // 4, "dealing the unseen cards anew must move some of them"


@pytest.mark.parametrize("name", list(CLASSES), ids=list(CLASSES))
def test_every_message_of_a_match_fits_its_schema(name: str) -> None:
    cls = CLASSES[name]
    for players in range(cls.min_players, cls.max_players + 1):
        bots, start = house_players(name, ["random"] * players, match_seed=players)
        seen: list[str] = []
        spec = MatchSpec(name, seed=players, players=players)
        outcome = play_match(spec, bots, recording(start, seen))
        assert outcome.faults == [] and verify(outcome.record) == []
        assert {"hello", "act", "game_over", "match_over"} <= set(seen)


@pytest.mark.parametrize("name", list(CLASSES), ids=list(CLASSES))
def test_the_class_describes_the_game_to_the_rest_of_the_system(name: str) -> None:
    cls = CLASSES[name]
    assert cls.title and cls.title != name
    assert 1 <= cls.min_players <= cls.default_players <= cls.max_players
    assert cls.variants and all(cls.title_of(v) for v in cls.variants)
    assert set(cls.variant_titles) <= set(cls.variants)
    settings = cls.checked_settings(cls.check_options, players=cls.min_players)
    assert settings.options == {**cls.option_defaults, **cls.check_options}
    demo = dict(cls.demo_format)
    assert cls.min_players <= demo.get("table_size", cls.default_players) <= cls.max_players
    game = new_game(name, 0, players=cls.default_players)
    seen = game.observation(game.to_act()[0])
    assert set(cls.private_keys) <= set(seen), "a private key must be an observation key"
    hello = protocol.hello(
        bot=0,
        seat=0,
        game=name,
        variant=cls.variants[0],
        options=dict(cls.option_defaults),
        players=cls.min_players,
        games=1,
        time={"startup_s": 1.0, "move_s": 1.0, "bank_s": 1.0},
    )
    validate_message(hello)
