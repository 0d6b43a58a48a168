"""Actions outside a position's legal list, for the conformance suite to offer an engine.

An engine must refuse every action that is not equal to one of ``legal_actions(seat)``
(judge.engine: the referee asks the bot for one of them, but a record replays through
``apply`` alone). Random play only ever offers legal actions, so a rule the legal list
knows but ``why_illegal`` forgets goes unseen there; these offers find it. They are built
from the game itself, with nothing written per game:

- **from other states**: actions that were legal somewhere else in the game's random
  games (another position, another seat, another table size or variant): ``concede``
  where conceding is not allowed, a Big Two play that does not beat the trick or uses a
  card the seat no longer holds;
- **from the cards**: a legal action with one of its card texts swapped for another card
  the game dealt or showed (a card not held, a play that is no combination), with a card
  added, one removed, one named twice, or its cards in another order;
- **malformed**: values of the wrong type or shape (``None``, numbers, an object, a
  string where a list is wanted and the reverse, changed case, padding);
- **by the wrong seat**: the acting seat's legal actions offered by a seat not to act,
  and by seats that do not exist.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator
from typing import Any

from judge.cards import CardParseError, parse_card
from judge.engine import Action, Game

#: Values of the wrong type or shape that no engine may take for an action.
MALFORMED: tuple[Any, ...] = (
    None,
    0,
    -1,
    1.5,
    True,
    "",
    " ",
    "no such action",
    {},
    {"action": "pass"},
    [],
    [None],
    [[]],
    [0],
)
#: At most this many offers from other states and from the cards at one position.
PER_POSITION = 24
#: Strings longer than this in an observation are not taken for card texts.
WORD_CHARS = 12


def key(action: Any) -> str:
    """A hashable, exact form of an action (JSON keeps "1" and 1 apart)."""
    return json.dumps(action, sort_keys=True)


def strings_in(value: Any) -> Iterator[str]:
    """Every string inside a JSON value (keys included), depth first."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for name, item in value.items():
            yield str(name)
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def is_card(word: str) -> bool:
    """Whether a string is a card text (judge.cards)."""
    try:
        parse_card(word)
    except CardParseError:
        return False
    return True


def card_words(game: Game) -> set[str]:
    """The card texts of the game: every card it shuffled (its record's deck orders) and
    every card text its observations show (a game may deal without shuffling)."""
    dealt = {text for order in game.deck_orders for text in order}
    shown = {
        word
        for seat in range(game.players)
        for word in strings_in(game.observation(seat))
        if len(word) <= WORD_CHARS and is_card(word)
    }
    return dealt | shown


def reshaped(action: Action, words: list[str]) -> Iterator[Any]:
    """Near misses of one legal action: its cards swapped, added, dropped, doubled or
    reordered, its tokens swapped for cards, and its form changed."""
    if isinstance(action, str):
        yield [action]
        yield action.upper() if action != action.upper() else action.lower()
        yield f" {action}"
        tokens = action.split()
        for index, token in enumerate(tokens):
            if token in words:
                for word in words[:3]:
                    yield " ".join([*tokens[:index], word, *tokens[index + 1 :]])
        return
    cards = list(action)
    yield " ".join(str(card) for card in cards)
    yield [*cards, cards[0]] if cards else [words[0]]
    if len(cards) > 1:
        yield cards[:-1]
        yield list(reversed(cards))
    for word in words[:3]:
        if word not in cards:
            yield [*cards, word]
            if cards:
                yield [word, *cards[1:]]


def near_misses(game: Game, legal: list[Action], rng: random.Random) -> list[Any]:
    """Offers built from the cards and the form of the legal actions (a sample)."""
    words = sorted(card_words(game))
    rng.shuffle(words)
    found: list[Any] = list(MALFORMED)
    for action in rng.sample(legal, min(3, len(legal))):
        found.extend(reshaped(action, words))
    return found


def outside(candidates: Iterable[Any], legal: list[Action]) -> list[Any]:
    """The candidates that are not equal to a legal action, each once."""
    allowed = {key(action) for action in legal}
    seen: dict[str, Any] = {}
    for candidate in candidates:
        text = key(candidate)
        if text not in allowed and text not in seen:
            seen[text] = candidate
    return list(seen.values())


def offers(game: Game, seat: int, pool: dict[str, Action], rng: random.Random) -> list[Any]:
    """What to offer ``seat`` (to act) now: a sample of the pool of actions legal
    elsewhere, the near misses of its legal actions and the malformed values, every one
    outside its legal list."""
    legal = game.legal_actions(seat)
    elsewhere = outside(pool.values(), legal)
    sample = rng.sample(elsewhere, min(PER_POSITION, len(elsewhere)))
    return outside([*sample, *near_misses(game, legal, rng)], legal)


def wrong_seats(game: Game, rng: random.Random) -> list[tuple[int, Action]]:
    """(seat, action) pairs offered by a seat that is not to act: another seat with an
    action legal for the seat that is, and seats that do not exist."""
    acting = game.to_act()
    legal = game.legal_actions(acting[0])
    action = rng.choice(legal)
    idle = [seat for seat in range(game.players) if seat not in acting]
    return [(seat, action) for seat in idle] + [(-1, action), (game.players, action)]
