"""One conformance suite for every game of the registry (and the tests' toy High Card).

In the manner of OpenSpiel's generic random-simulation test: random games to the end at
every table size and variant, with the default options and with random option sets drawn
from the schema's bounds, and every option at each of its extremes (played correctly, or
refused with an error naming the option); every option changing what the seats see or the
result; every action outside the legal list refused with a reason (tests/judge/offers.py);
determinism from the seed, record -> replay round trip, secrecy (an observation does not
change when the cards its seat cannot see are dealt anew), the fallback action always
legal, zero-sum where the game says so, every house bot playing without a fault, every
protocol message of a match valid against its JSON Schema, and the demo filled by the
game's own bots. Every path that plays a game (random play and the referee's matches) is
capped from the game's own moves estimate, so a game that never ends (or that declares far
too few moves for the budgets) fails clearly, naming itself. A new game passes this suite
without a line written here: it is parametrised over the registry. The suite checks the
shape of a result, not its numbers: scoring is for the game's own rule tests
(docs/adding-a-game.md). tests/judge/test_conformance_catches.py runs it on planted bugs.
"""

from __future__ import annotations

import copy
import difflib
import itertools
import json
import random
from collections.abc import Mapping
from typing import Any

import pytest

from judge import protocol
from judge.bots import policies
from judge.engine import Action, Game, GameError, IllegalActionError
from judge.games import GAMES, game_class, interface, new_game, parts, replay
from judge.options import Option, OptionKind
from judge.players import house_players
from judge.referee import BotInfo, MatchOutcome, MatchSpec, MatchStopped, StartBot, play_match
from judge.replay import verify
from tests.judge import offers
from tests.judge.fakes import validate_message
from tests.judge.highcard import HighCard
from tests.judge.playing import CAP_FACTOR, CAP_MARGIN, action_cap, never_ended
from tests.judge.test_referee_games import recording

#: The registry's games, with the toy that proves a fourth one needs nothing more (the
#: suite registers it: tests/conftest.py).
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
#: Random option sets per table size.
OPTION_SETS = 3


def extremes(option: Option) -> list[Any]:
    """The values at the edges of an option: both bounds, both truths, every choice."""
    if option.kind is OptionKind.INT:
        return sorted({option.to_json()["minimum"], option.to_json()["maximum"]})
    if option.kind is OptionKind.BOOL:
        return [False, True]
    return list(option.choices)


#: (game, players, option, value) for every option's every extreme at every table size.
EXTREMES = [
    (name, players, option.name, value)
    for name, cls in CLASSES.items()
    for players in range(cls.min_players, cls.max_players + 1)
    for option in cls.option_schema
    for value in extremes(option)
]
EXTREME_IDS = [f"{name}-{players}p-{option}={value}" for name, players, option, value in EXTREMES]
#: (game, players) of every table size.
SIZES = sorted({(name, players) for name, players, _ in TABLES})


def make(
    name: str, seed: int, players: int, variant: str, options: Mapping[str, Any] | None = None
) -> Game:
    return new_game(name, seed, players=players, variant=variant, options=options)


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
    cap = action_cap(game)
    for _ in range(cap):
        if game.is_over():
            return game
        if check:
            check_position(game)
        random_step(game, rng)
    raise AssertionError(never_ended(game.name, game.options, game.players, cap))


def capped_match(spec: MatchSpec, bots: list[BotInfo], start: StartBot) -> MatchOutcome:
    """``play_match`` stopped after the moves its games may take at most (every path that
    plays a game is capped): a game that never ends fails naming itself, never hangs."""
    cls = game_class(spec.game)
    players = spec.players or len(bots)
    cap = spec.games * (CAP_FACTOR * cls.moves_estimate(spec.options, players) + CAP_MARGIN)
    asked = itertools.count()
    try:
        return play_match(spec, bots, start, stop=lambda: next(asked) > cap)
    except MatchStopped:
        raise AssertionError(never_ended(spec.game, spec.options, players, cap)) from None


def check_finished(game: Game) -> None:
    """A finished game: nobody to act, a proper result, zero-sum where declared."""
    assert game.to_act() == ()
    assert all(game.legal_actions(seat) == [] for seat in range(game.players))
    result = game.result()
    assert len(result.scores) == len(result.places) == game.players
    assert min(result.places) == 1 and max(result.places) <= game.players
    if game.zero_sum:
        assert sum(result.scores) == 0
    assert json.loads(json.dumps(game.revealed())) == game.revealed()


def check_position(game: Game) -> None:
    """Observations are JSON values; only seats to act have legal actions."""
    acting = set(game.to_act())
    assert acting and acting <= set(range(game.players))
    for seat in range(game.players):
        seen = game.observation(seat)
        assert json.loads(json.dumps(seen)) == seen
        assert bool(game.legal_actions(seat)) == (seat in acting)
        if seat not in acting:
            action = game.fallback_action(next(iter(acting)))
            assert game.why_illegal(seat, action) is not None, (
                f"{where(game)} accepted {action!r} from seat {seat}, which is not to act"
            )


@pytest.mark.parametrize(("name", "players", "variant"), TABLES, ids=IDS)
def test_random_games_run_to_an_end_with_a_proper_result(
    name: str, players: int, variant: str
) -> None:
    rng = random.Random(f"{name}-{players}-{variant}")
    for seed in range(SEEDS):
        check_finished(play_randomly(make(name, seed, players, variant), rng, check=seed < 2))


def random_options(cls: type[Game], rng: random.Random) -> dict[str, Any]:
    """One option set drawn from the schema's bounds (a repeat option's draw stays near its
    minimum, to keep the suite short: its maximum is one of the extremes played below)."""
    drawn: dict[str, Any] = {}
    for option in cls.option_schema:
        if option.kind is OptionKind.INT:
            low, high = option.to_json()["minimum"], option.to_json()["maximum"]
            if option.name in cls.repeat_options:
                high = min(high, low + 2)
            drawn[option.name] = rng.randint(low, high)
        else:
            drawn[option.name] = rng.choice(extremes(option))
    return drawn


def refused_clearly(cls: type[Game], options: Mapping[str, Any], players: int) -> bool:
    """True when the settings are refused by the validator with an error naming an option
    of the set (a rule between options); False when they are accepted."""
    try:
        cls.checked_settings(options, players=players)
    except GameError as error:
        assert any(name in str(error) for name in options), f"unclear refusal: {error}"
        return True
    return False


@pytest.mark.parametrize(("name", "players"), SIZES, ids=[f"{n}-{p}p" for n, p in SIZES])
def test_random_option_sets_play_to_an_end_or_are_refused_clearly(name: str, players: int) -> None:
    cls = game_class(name)
    rng = random.Random(f"options-{name}-{players}")
    for seed in range(OPTION_SETS):
        options = random_options(cls, rng)
        if refused_clearly(cls, options, players):
            continue
        variant = rng.choice(cls.variants)
        game = make(name, seed, players, variant, options)
        check_finished(play_randomly(game, rng, check=True))
        assert replay(json.loads(json.dumps(game.record()))).result() == game.result()


@pytest.mark.parametrize(("name", "players", "option", "value"), EXTREMES, ids=EXTREME_IDS)
def test_every_option_at_its_extremes_plays_correctly_or_is_refused_clearly(
    name: str, players: int, option: str, value: Any
) -> None:
    cls = game_class(name)
    options = {option: value}
    if refused_clearly(cls, options, players):
        return
    rng = random.Random(f"extreme-{name}-{players}-{option}-{value}")
    for variant in cls.variants:
        game = make(name, 1, players, variant, options)
        long = game.moves_estimate(game.options, players) > 500  # positions checked elsewhere
        check_finished(play_randomly(game, rng, check=not long))


@pytest.mark.parametrize("name", list(CLASSES), ids=list(CLASSES))
def test_values_past_an_options_bounds_are_refused_naming_the_option(name: str) -> None:
    cls = game_class(name)
    for option in cls.option_schema:
        shown = option.to_json()
        wrong: list[Any] = ["nonsense", None]
        if option.kind is OptionKind.INT:
            wrong += [shown["minimum"] - 1, shown["maximum"] + 1, 1.5, True]
        for value in wrong:
            with pytest.raises(GameError, match=option.name):
                cls.checked_settings({option.name: value})
    with pytest.raises(GameError, match="no option"):
        cls.checked_settings({"no_such_option": 1})


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
        for _ in range(action_cap(game)):
            if game.is_over():
                break
            seat = rng.randrange(players)
            twin = copy.deepcopy(game)
            moved += twin.redeal_unseen(seat, rng)
            assert twin.observation(seat) == game.observation(seat)
            assert twin.legal_actions(seat) == game.legal_actions(seat)
            assert twin.to_act() == game.to_act()
            checked += 1
            random_step(game, rng)
        assert game.is_over(), never_ended(name, game.options, players, action_cap(game))
    assert moved > checked // 4, "dealing the unseen cards anew must move some of them"


def legal_pool(name: str) -> dict[str, Action]:
    """Every action legal somewhere in one random game of ``name`` at each table size and
    variant: what the game's actions look like, to offer where they are not legal."""
    if name not in _POOLS:
        pool: dict[str, Action] = {}
        rng = random.Random(f"pool-{name}")
        for table, players, variant in TABLES:
            if table != name:
                continue
            game = make(name, POOL_SEED, players, variant)
            for _ in range(action_cap(game)):
                if game.is_over():
                    break
                for seat in game.to_act():
                    pool.update((offers.key(a), a) for a in game.legal_actions(seat))
                random_step(game, rng)
        _POOLS[name] = pool
    return _POOLS[name]


_POOLS: dict[str, dict[str, Action]] = {}
#: The seed of the games the pool of actions comes from (the checked games use others).
POOL_SEED = 1000
#: Random games per table whose every position is offered actions outside its legal list.
OFFER_SEEDS = 2


def where(game: Game) -> str:
    """A position, named well enough to replay it by hand."""
    return (
        f"{game.name} ({game.players} players, {game.variant}, options {game.options}, "
        f"seed {game.seed}) after {len(game.history)} actions"
    )


def shown(actions: list[Action]) -> str:
    """A legal list in a failure message, cut short when long."""
    return repr(actions) if len(actions) <= 8 else f"{actions[:8]!r} and {len(actions) - 8} more"


def assert_refused(game: Game, seat: int, action: Any) -> None:
    """``apply`` raises IllegalActionError with a reason, and ``why_illegal`` gives one."""
    legal = game.legal_actions(seat) if 0 <= seat < game.players else []
    try:
        game.apply(seat, action)
    except IllegalActionError as error:
        assert str(error).strip(), f"{where(game)}: {action!r} refused without a reason"
    except Exception as error:  # any other error would escape the referee
        raise AssertionError(
            f"{where(game)}: seat {seat} offering {action!r} raised "
            f"{type(error).__name__}: {error}; refuse it with IllegalActionError and a reason"
        ) from error
    else:
        raise AssertionError(
            f"{where(game)} accepted {action!r} from seat {seat}, which is not among its "
            f"legal actions {shown(legal)}: why_illegal must refuse every action outside "
            "legal_actions"
        )
    reason = game.why_illegal(seat, action)
    assert isinstance(reason, str) and reason.strip(), (
        f"{where(game)}: why_illegal gave {reason!r} for {action!r}, which apply refuses"
    )


def snapshot(game: Game) -> Any:
    """Everything a refusal must leave as it was."""
    seats = range(game.players)
    return (
        game.record(),
        game.to_act(),
        [game.observation(seat) for seat in seats],
        [game.legal_actions(seat) for seat in seats],
    )


def offer_outside_the_legal_list(game: Game, pool: dict[str, Action], rng: random.Random) -> None:
    """Offer one acting seat actions outside its legal list, and others' seats theirs."""
    before = snapshot(game)
    seat = rng.choice(game.to_act())
    offered = [(seat, action) for action in offers.offers(game, seat, pool, rng)]
    for seat, action in [*offered, *offers.wrong_seats(game, rng)]:
        assert_refused(game, seat, action)
    assert snapshot(game) == before, f"{where(game)}: refusing actions changed the game"


@pytest.mark.parametrize(("name", "players", "variant"), TABLES, ids=IDS)
def test_every_action_outside_the_legal_list_is_refused_with_a_reason(
    name: str, players: int, variant: str
) -> None:
    pool = legal_pool(name)
    rng = random.Random(f"offers-{name}-{players}-{variant}")
    for seed in range(OFFER_SEEDS):
        game = make(name, seed, players, variant)
        for _ in range(action_cap(game)):
            if game.is_over():
                break
            offer_outside_the_legal_list(game, pool, rng)
            random_step(game, rng)
        assert game.is_over(), never_ended(name, game.options, players, action_cap(game))
        for action in rng.sample(list(pool.values()), min(8, len(pool))):
            assert_refused(game, rng.randrange(players), action)


#: (game, option) for every option a game declares.
OPTIONS = [(name, option.name) for name, cls in CLASSES.items() for option in cls.option_schema]
#: Pairs of option sets that differ in one option only, drawn at random besides the
#: default set against each other value (a threshold may show only beside other values).
RANDOM_PAIRS = 12
#: Seeded games per pair, table size and variant that may show an option's effect.
EFFECT_SEEDS = 3


def other_values(option: Option) -> list[Any]:
    """Values of an option besides its default: its extremes, and its default's neighbours."""
    values = extremes(option)
    if option.kind is OptionKind.INT:
        low, high = option.to_json()["minimum"], option.to_json()["maximum"]
        values += [v for v in (option.default - 1, option.default + 1) if low <= v <= high]
    return [value for value in dict.fromkeys(values) if value != option.default]


def option_pairs(cls: type[Game], option: Option) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Option sets that differ in ``option`` alone: the defaults against each other value,
    then random sets drawn from the schema against the same set with another value."""
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = [
        ({}, {option.name: value}) for value in other_values(option)
    ]
    rng = random.Random(f"pairs-{cls.name}-{option.name}")
    for _ in range(RANDOM_PAIRS):
        base, value = random_options(cls, rng), random_options(cls, rng)[option.name]
        if value != base[option.name]:
            pairs.append((base, {**base, option.name: value}))
    return pairs


def view(game: Game, option: str) -> Any:
    """What the seats see and may do now; an observation key named as the option (an echo
    of its value) is left out, so an option must change the play, not only be shown."""
    seats = range(game.players)
    return (
        game.to_act(),
        [game.legal_actions(seat) for seat in seats],
        [{k: v for k, v in game.observation(seat).items() if k != option} for seat in seats],
        game.result() if game.is_over() else None,
        game.revealed() if game.is_over() else None,
    )


def changes_the_game(
    option: str, pair: tuple[dict[str, Any], dict[str, Any]], table: tuple[str, int, str], seed: int
) -> bool:
    """Whether two games from one seed and table, one with each option set of ``pair``,
    played by the same random choices, ever differ in what their seats see or may do, or
    in their result."""
    name, players, variant = table
    games = [make(name, seed, players, variant, options) for options in pair]
    rngs = [random.Random(seed), random.Random(seed)]
    cap = max(action_cap(game) for game in games)
    for _ in range(cap):
        if view(games[0], option) != view(games[1], option):
            return True
        if games[0].is_over():
            return False
        for game, rng in zip(games, rngs, strict=True):
            random_step(game, rng)
    raise AssertionError(never_ended(name, pair[1], players, cap))


@pytest.mark.parametrize(("name", "option"), OPTIONS, ids=[f"{n}-{o}" for n, o in OPTIONS])
def test_every_option_changes_what_the_seats_see_or_the_outcome(name: str, option: str) -> None:
    cls = CLASSES[name]
    declared = next(o for o in cls.option_schema if o.name == option)
    played = 0
    for pair in option_pairs(cls, declared):
        for table in [t for t in TABLES if t[0] == name]:
            if any(refused_clearly(cls, options, table[1]) for options in pair):
                continue
            for seed in range(EFFECT_SEEDS):
                played += 1
                if changes_the_game(option, pair, table, seed):
                    return
    assert played, f"{name} refuses every value of {option!r} but its default: drop the option"
    raise AssertionError(
        f"{name} option {option!r} changed no observation, legal action or result in "
        f"{played} pairs of seeded games that differ in it alone (its default "
        f"{declared.default!r} against {other_values(declared)}, and random option sets): "
        "the engine ignores it"
    )


@pytest.mark.parametrize("name", list(CLASSES), ids=list(CLASSES))
def test_every_message_of_a_match_fits_its_schema(name: str) -> None:
    cls = CLASSES[name]
    for players in range(cls.min_players, cls.max_players + 1):
        bots, start = house_players(name, ["random"] * players, match_seed=players)
        seen: list[str] = []
        spec = MatchSpec(name, seed=players, players=players)
        outcome = capped_match(spec, bots, recording(start, seen))
        assert outcome.faults == [] and verify(outcome.record) == []
        assert {"hello", "act", "game_over", "match_over"} <= set(seen)


@pytest.mark.parametrize("name", list(CLASSES), ids=list(CLASSES))
def test_the_class_describes_the_game_to_the_rest_of_the_system(name: str) -> None:
    cls = CLASSES[name]
    assert interface.problems(cls) == [], "registration checks the class (judge.games.interface)"
    assert cls.moves_per_game > 0, "declare moves_per_game: the match budgets are built on it"
    schema = {option.name: option for option in cls.option_schema}
    assert all(schema[rep].kind is OptionKind.INT for rep in cls.repeat_options)
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


@pytest.mark.parametrize("name", list(CLASSES), ids=list(CLASSES))
def test_the_demo_is_filled_by_the_games_own_bots(name: str) -> None:
    """The first run's demo enters every house bot and example bot of the game: a table
    larger than they are cannot be scheduled, and the demo duel is two house bots."""
    cls = CLASSES[name]
    house, examples = sorted(policies(name)), sorted(parts.seed_files(cls))
    size = dict(cls.demo_format).get("table_size", cls.default_players)
    assert size <= len(house) + len(examples), (
        f"{name}'s demo_format seats {size} at a table, but its demo has only "
        f"{len(house) + len(examples)} entrants (house bots {house}, example bots "
        f"{examples}): seat fewer, or add house bots (bots.py) or example bots (seeds/)"
    )
    if cls.demo_duel is not None:
        challenger, baseline = cls.demo_duel
        assert challenger != baseline and {challenger, baseline} <= set(house), (
            f"{name}'s demo_duel {cls.demo_duel} must name two house bots of {house}"
        )


#: What judge.narration reads from a game's narration.py (a near miss is silently ignored).
NARRATION_NAMES = ["events", "outcome"]


@pytest.mark.parametrize("name", list(CLASSES), ids=list(CLASSES))
def test_the_games_parts_are_where_the_registry_finds_them(name: str) -> None:
    cls = CLASSES[name]
    narration = parts.part_module(cls, "narration")
    assert narration is not None and callable(narration.outcome), "narration.py with outcome"
    misspelt = [
        f"{found} (for {wanted})"
        for found in dir(narration)
        for wanted in difflib.get_close_matches(found, NARRATION_NAMES, n=1, cutoff=0.7)
        if found != wanted
    ]
    assert not misspelt, f"narration.py defines {misspelt}, which judge.narration never reads"
    renderer = parts.renderer_file(cls)
    if cls.renderer:
        assert renderer is not None, f"{cls.renderer!r} named but no replay.js beside the game"
        assert f"ReplayRenderers.{cls.renderer} =" in renderer.read_text(encoding="utf-8")
    for rules in (parts.rules_file(cls), parts.rules_tests_file(cls)):
        assert rules is not None and rules.read_text(encoding="utf-8").startswith("# ")
        assert "`" not in rules.read_text(encoding="utf-8").splitlines()[0], "a title in words"


@pytest.mark.parametrize("name", list(CLASSES), ids=list(CLASSES))
def test_every_house_bot_plays_a_match_without_a_fault(name: str) -> None:
    cls = CLASSES[name]
    for bot in policies(name):
        bots, start = house_players(name, [bot] * cls.default_players, match_seed=7)
        spec = MatchSpec(name, seed=7, players=cls.default_players, options=dict(cls.check_options))
        outcome = capped_match(spec, bots, start)
        assert outcome.faults == [], f"house bot {bot!r}: {outcome.faults}"
