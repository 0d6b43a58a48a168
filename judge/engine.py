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

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

from judge.cards import Card, format_cards
from judge.rng import rng

Seat: TypeAlias = int
#: A bot's choice: a string or a list of card strings, exactly as in ``legal_actions``.
Action: TypeAlias = str | list[str]
JSONDict: TypeAlias = dict[str, Any]


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
class Step:
    """One applied action: who did what, in the order the engine received it."""

    seat: Seat
    action: Action


class Game(ABC):
    """Base class of every engine; subclasses fill in the rules (see the module docstring)."""

    #: Registry name, used on the command line and in the protocol: ``oceans11`` etc.
    name: ClassVar[str]
    variants: ClassVar[tuple[str, ...]] = ("standard",)
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    default_players: ClassVar[int] = 2
    #: Every option the game accepts, with its default value. Unknown options are refused.
    option_defaults: ClassVar[Mapping[str, Any]] = {}

    def __init__(
        self,
        seed: int,
        players: int | None = None,
        variant: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        self.seed = int(seed)
        self.players = self.default_players if players is None else int(players)
        self.variant = self.variants[0] if variant is None else variant
        self.options = self._checked_options(options or {})
        if self.variant not in self.variants:
            raise GameError(
                f"{self.name} has no variant {self.variant!r}; choose one of {list(self.variants)}"
            )
        if not self.min_players <= self.players <= self.max_players:
            raise GameError(
                f"{self.name} is played by {self.min_players} to {self.max_players} players, "
                f"not {self.players}"
            )
        self.history: list[Step] = []
        self.deck_orders: list[list[str]] = []
        self._setup()

    def _checked_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(options) - set(self.option_defaults))
        if unknown:
            known = sorted(self.option_defaults) or "none"
            raise GameError(f"{self.name} has no option {unknown[0]!r}; its options: {known}")
        return {**self.option_defaults, **options}

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

    def apply(self, seat: Seat, action: Action) -> None:
        """Apply ``action`` for ``seat``, or raise IllegalActionError saying why not."""
        reason = self.why_illegal(seat, action)
        if reason is not None:
            raise IllegalActionError(f"seat {seat}: {reason}")
        self._apply(seat, action)
        self.history.append(Step(seat, action))

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
