"""The common engine interface that every game implements.

A game is made from (seed, number of players, variant, options) and changes only through
``apply``. At every moment it says which seats must act (several at once for simultaneous
choices), what one seat may see (``observation``, JSON-ready, built only from what that
seat may see), and what that seat may do (``legal_actions``). Illegal actions raise
``IllegalActionError`` saying why. When ``is_over()``, ``result()`` gives each seat's
score and place. ``record()`` is everything needed to replay the game exactly, and
``replay(record)`` does so.

Actions are JSON values: a string (``"deal"``, ``"fold"``) or a list of card strings (a
Big Two play). ``legal_actions`` lists them in canonical form, and a bot's answer must be
equal to one of them; a referee may also accept the answer as an index into that list.

Randomness comes only from ``self.shuffle(cards, *path)``, seeded by (game seed, path), and
every shuffled order is kept in the record so a replay can show the deals.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias, TypeVar

from judge.cards import Card, format_cards
from judge.options import Option, OptionError, checked_options
from judge.rng import rng

Seat: TypeAlias = int
#: A bot's choice: a string or a list of card strings, exactly as in ``legal_actions``.
Action: TypeAlias = str | list[str]
JSONDict: TypeAlias = dict[str, Any]
#: A card, or a game's own encoding of one (Big Two deals card ids).
T = TypeVar("T")


class GameError(ValueError):
    """A game cannot be made as asked (bad variant, option or number of players)."""


class IllegalActionError(ValueError):
    """An action that the rules do not allow now; the message says why."""


@dataclass(frozen=True)
class Result:
    """The outcome of one game: a score per seat and a place per seat (1 is best).

    Places follow scores, higher is better, and equal scores share a place (two seats
    tied for first are both 1st, the next is 3rd).
    """

    scores: tuple[float, ...]
    places: tuple[int, ...]

    @classmethod
    def from_scores(cls, scores: Sequence[float]) -> Result:
        places = tuple(1 + sum(other > mine for other in scores) for mine in scores)
        return cls(tuple(scores), places)

    def to_json(self) -> JSONDict:
        return {"scores": list(self.scores), "places": list(self.places)}


@dataclass(frozen=True)
class Settings:
    """A checked request for a game: table size, variant and every option's value."""

    players: int
    variant: str
    options: JSONDict


@dataclass(frozen=True)
class Step:
    """One applied action: who did what, in the order the engine received it."""

    seat: Seat
    action: Action


class Game(ABC):
    """Base class of every engine; subclasses fill in the rules (see the module docstring)."""

    #: Registry name, used on the command line and in the protocol: ``oceans11`` etc.
    name: ClassVar[str]
    #: The name people read: "Oceans 11".
    title: ClassVar[str] = ""
    variants: ClassVar[tuple[str, ...]] = ("standard",)
    #: Variant name -> the name people read (a variant missing here shows its name).
    variant_titles: ClassVar[Mapping[str, str]] = {}
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    default_players: ClassVar[int] = 2
    #: Every option the game accepts, with its bounds (judge.options); unknown ones are
    #: refused. ``option_defaults`` is derived from it.
    option_schema: ClassVar[tuple[Option, ...]] = ()
    option_defaults: ClassVar[Mapping[str, Any]] = {}
    #: Observation keys only their own seat sees (the replay's all-seats view gathers them
    #: from every seat; every other key is public).
    private_keys: ClassVar[tuple[str, ...]] = ()
    #: Whether the scores of every finished game add up to zero.
    zero_sum: ClassVar[bool] = False
    #: Moves one game takes at most in ordinary play, all seats together, for one unit of
    #: each ``repeat_options`` option (a deal, a hand): the service's wall-clock budget of a
    #: match is built from it (0 is refused by the conformance suite: declare it).
    moves_per_game: ClassVar[int] = 0
    #: Whole-number options that multiply a game's moves (Big Two ``deals``).
    repeat_options: ClassVar[tuple[str, ...]] = ()
    #: The first run's demo tournament (services.create_tournament fields).
    demo_format: ClassVar[Mapping[str, Any]] = {"games_per_pairing": 2}
    #: The first run's demo duel: (challenger, baseline), two house policies whose gap a
    #: duel decides in a few hundred games; None: this game's demo plays no duel.
    demo_duel: ClassVar[tuple[str, str] | None] = None
    #: Options that keep a new version's check matches short.
    check_options: ClassVar[Mapping[str, Any]] = {}
    #: The kinds of decision a bot meets in this game, key -> what people read ("following
    #: a pair"), in the order a report lists them: a new version's check plays until its
    #: bot has met each kind a few times (or its budget is spent), so that a fault which
    #: only some positions bring out is found before rated play. ``situation`` says which
    #: kinds a seat meets now; {} (the default): the check plays its one round only.
    situations: ClassVar[Mapping[str, str]] = {}
    #: Set by ``apply_listed`` for the one ``apply`` it makes: (moves so far, seat, the
    #: action's id), an action known to be in the seat's legal list.
    _listed: tuple[int, Seat, int] | None = None
    #: The name the replay renderer registers under (the game package's replay.js); "" for
    #: the generic renderer. Read through judge.games.parts, which finds the file.
    renderer: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.option_defaults = {option.name: option.default for option in cls.option_schema}

    def __init__(
        self,
        seed: int,
        players: int | None = None,
        variant: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        settings = self.checked_settings(options, players=players, variant=variant)
        self.seed = int(seed)
        self.players = settings.players
        self.variant = settings.variant
        self.options = settings.options
        self.history: list[Step] = []
        self.deck_orders: list[list[str]] = []
        self._setup()

    @classmethod
    def checked_settings(
        cls,
        options: Mapping[str, Any] | None = None,
        players: int | None = None,
        variant: str | None = None,
    ) -> Settings:
        """The one validator of a game request (engine, service, API and web all call it):
        the table size, the variant and every option within its declared bounds, or
        GameError saying what is wrong. Missing values take their defaults."""
        chosen_players = cls.default_players if players is None else players
        if type(chosen_players) is not int or not (
            cls.min_players <= chosen_players <= cls.max_players
        ):
            raise GameError(
                f"{cls.name} is played by {cls.min_players} to {cls.max_players} players, "
                f"not {chosen_players!r}"
            )
        chosen_variant = variant or cls.variants[0]
        if chosen_variant not in cls.variants:
            raise GameError(
                f"{cls.name} has no variant {chosen_variant!r}; choose one of {list(cls.variants)}"
            )
        try:
            checked = checked_options(
                cls.name, cls.option_schema, {} if options is None else options
            )
        except OptionError as error:
            raise GameError(str(error)) from None
        cls._check_together(checked)
        return Settings(chosen_players, chosen_variant, checked)

    @classmethod
    def _check_together(cls, options: Mapping[str, Any]) -> None:
        """Rules between options (each already within its bounds); GameError if broken."""
        return None

    @classmethod
    def title_of(cls, variant: str) -> str:
        """The name people read of one of the game's variants."""
        return cls.variant_titles.get(variant, variant)

    @classmethod
    def moves_estimate(cls, options: Mapping[str, Any] | None = None, players: int = 0) -> int:
        """Moves one game with ``options`` at a table of ``players`` (0: the default) takes
        at most in ordinary play: ``moves_per_game`` times each repeat option's value (its
        default when not given). A game whose length follows the table size otherwise
        overrides this."""
        chosen = {**cls.option_defaults, **(options or {})}
        moves = cls.moves_per_game
        for name in cls.repeat_options:
            value = chosen.get(name)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                moves *= value
        return moves

    def shuffle(self, cards: Sequence[Card], *path: int | str) -> list[Card]:
        """A copy of ``cards`` shuffled by (game seed, path); the order goes into the record."""
        order = list(cards)
        rng(self.seed, *path).shuffle(order)
        self.deck_orders.append(format_cards(order))
        return order

    # The rules: every game supplies these.

    @abstractmethod
    def _setup(self) -> None:
        """Deal and set the first state; called once by ``__init__``."""

    @abstractmethod
    def to_act(self) -> tuple[Seat, ...]:
        """The seats that must act now (empty when the game is over)."""

    @abstractmethod
    def observation(self, seat: Seat) -> JSONDict:
        """What ``seat`` may see now, JSON-ready; built by choosing, never by deleting secrets."""

    @abstractmethod
    def legal_actions(self, seat: Seat) -> list[Action]:
        """Every action ``seat`` may take now, in canonical form (empty if it need not act)."""

    @abstractmethod
    def _apply(self, seat: Seat, action: Action) -> None:
        """Carry out an action already known to be legal."""

    @abstractmethod
    def fallback_action(self, seat: Seat) -> Action:
        """The weakest legal choice, played for a seat that has faulted (rules.md)."""

    @abstractmethod
    def is_over(self) -> bool:
        """Whether the game has ended."""

    @abstractmethod
    def result(self) -> Result:
        """Scores and places; only once ``is_over()``."""

    @abstractmethod
    def revealed(self) -> JSONDict:
        """Everything that is shown to all at the end of the game (every hidden card)."""

    @abstractmethod
    def redeal_unseen(self, seat: Seat, rng: random.Random) -> bool:
        """Deal again, in place and at random, every card ``seat`` cannot see now, keeping
        what it can see; True if some card moved. The conformance suite's secrecy check
        calls it: ``observation(seat)`` and ``legal_actions(seat)`` must not change.
        Games build it on :func:`redeal`, which does the dealing for every game."""

    def situation(self, seat: Seat) -> tuple[str, ...]:
        """The ``situations`` keys of the decision ``seat`` is asked now (several when
        one decision is of several kinds: following a pair with nothing but "pass" to
        play); empty when it is not to act. Only the check reads it, replaying records."""
        return ()

    # Shared machinery.

    def why_illegal(self, seat: Seat, action: Action) -> str | None:
        """Why ``action`` is not allowed for ``seat`` now, or None if it is allowed.

        Games may override this to explain a refusal in the words of their rules.
        """
        if self.is_over():
            return "the game is over"
        if seat not in self.to_act():
            return f"it is not seat {seat}'s turn (to act: {list(self.to_act())})"
        if action not in self.legal_actions(seat):
            return f"{action!r} is not one of the legal actions {self.legal_actions(seat)!r}"
        return None

    def public_action(self, seat: Seat, action: Action) -> Action | None:
        """What every seat learns of ``seat``'s legal ``action`` as it is taken (asked
        before it is applied): all of it by default; None for a choice the game keeps
        secret (a sealed declaration). The live view shows the action or, for None, that
        a choice was made, and not by whom."""
        return action

    def apply(self, seat: Seat, action: Action) -> None:
        """Apply ``action`` for ``seat``, or raise IllegalActionError saying why not."""
        if self._listed != (len(self.history), seat, id(action)):
            reason = self.why_illegal(seat, action)
            if reason is not None:
                raise IllegalActionError(f"seat {seat}: {reason}")
        self._listed = None
        self._apply(seat, action)
        self.history.append(Step(seat, action))

    def apply_listed(self, seat: Seat, action: Action) -> None:
        """``apply`` an action that is an element of ``legal_actions(seat)`` got in this
        state for a seat to act (the referee's): that list is the rules' check, so it is
        not made again (a game's ``why_illegal`` may list every legal action once more).
        Goes through ``apply``, so a hook on it (the live feed's) still sees the move."""
        self._listed = (len(self.history), seat, id(action))
        try:
            self.apply(seat, action)
        finally:
            self._listed = None

    def header(self) -> JSONDict:
        """How the game was made: enough to make it again."""
        return {
            "game": self.name,
            "variant": self.variant,
            "players": self.players,
            "seed": self.seed,
            "options": dict(self.options),
        }

    def record(self) -> JSONDict:
        """Header, the shuffled deck orders and every action: the game replays from this."""
        return {
            **self.header(),
            "deck_orders": [list(order) for order in self.deck_orders],
            "actions": [[step.seat, step.action] for step in self.history],
        }


def redeal(piles: Sequence[Sequence[T]], rng: random.Random) -> tuple[list[list[T]], bool]:
    """The cards of ``piles`` gathered, shuffled by ``rng`` and dealt back in piles of the
    same sizes, and whether any pile now holds other cards or another order.

    Every game's ``redeal_unseen`` is this over the piles its seat cannot see (one call
    per group of piles whose cards may change places), so the secrecy check deals the same
    way in every game.
    """
    pool = [card for pile in piles for card in pile]
    rng.shuffle(pool)
    dealt: list[list[T]] = []
    for pile in piles:
        dealt.append(pool[: len(pile)])
        pool = pool[len(pile) :]
    return dealt, dealt != [list(pile) for pile in piles]
